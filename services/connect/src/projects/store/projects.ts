/** Project documents in MongoDB; the document ID is the project ID, so every query is scoped by it. */
import type { Collection, Db } from 'mongodb';
import type { IndexPlan } from '../../../../runtime/mongo.js';

/** 'development' or 'production' (validated in domain/projectRules.ts). */
export type Environment = 'development' | 'production';

/** A secret sealed with the master key (domain/keyEncryption.ts seals and opens it). */
export interface EncryptedSecret {
  alg: 'A256GCM';
  /** 12 random bytes, base64url. */
  iv: string;
  ciphertext: string;
  /** The 16-byte GCM authentication tag, base64url. */
  tag: string;
}

/** A public verification key as published in the JWKS. */
export interface PublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

export interface SigningKeyRecord {
  kid: string;
  publicJwk: PublicJwk;
  /** The private JWK as JSON, sealed with AES-256-GCM (AAD `${projectId}:${kid}`). */
  encryptedPrivateKey: EncryptedSecret;
  createdAt: Date;
  /**
   * When a rotated-in key starts signing (unset: from creation). It is published from creation
   * on, so verifiers that cache the JWKS (the gateway, the Node SDK for ten minutes) hold it
   * before the first token names it.
   */
  activatesAt?: Date;
  /**
   * Set when a newer key replaces this one (rotate-signing-key): the time the last token it can
   * sign expires. Until then it stays published so those tokens verify; after it, it is
   * unpublished and removed at the next rotation.
   */
  retiresAt?: Date;
}

export interface ApiSecretRecord {
  id: string;
  /** SHA-256 hex of the secret; the secret itself is never stored. */
  hash: string;
  createdAt: Date;
}

/** WebAuthn user verification policy of a project. */
export type UserVerification = 'required' | 'preferred' | 'discouraged';

/** Who delivers the values of B1 challenges. */
export type ChallengeDelivery = 'app' | 'service';

/** What /v2/me/refresh does with the refresh token (sessions/domain/refreshSession.ts). */
export type RefreshTokenRotation = 'rotate' | 'keep';

/** Roll-out of the connect flows (see decideFlowAllowed). */
export type ConnectRollout = 'everyone' | 'invited' | 'nobody';

/** Whether the project serves the self-service sign-up/login flows, /v2/auth/* (domain/selfServiceFlows.ts). */
export type SelfServiceFlows = 'enabled' | 'disabled';

export interface ProjectRecord {
  /** The project ID, `pro-` and 20 digits. */
  _id: string;
  name: string;
  rpId: string;
  rpName: string;
  origins: string[];
  appName: string;
  environment: Environment;
  frontendApiUrl: string;
  backendApiUrl: string;
  /** User verification required in WebAuthn ceremonies; absent on older records means "required". */
  userVerification?: UserVerification;
  /** Who delivers B1 challenges: the application ("app", the default) or this service. */
  challengeDelivery?: ChallengeDelivery;
  /** Wrong values a challenge accepts before it expires (default 5). */
  maxChallengeAttempts?: number;
  /** Where email links point when a challenge names no linkUrl. */
  emailLinkUrl?: string;
  /** Who may use the connect flows: everyone (the default), only invited clients, or nobody. */
  connectRollout?: ConnectRollout;
  /** Flags the project adds to every connect init answer (they win over the client's). */
  connectFlags?: Record<string, string>;
  /** Lifetime of session tokens in seconds (default 900, see domain/sessionLifetimes.ts). */
  sessionLifetimeSeconds?: number;
  /** Lifetime of a session with refresh tokens in seconds, from sign-in (default 30 days). */
  refreshLifetimeSeconds?: number;
  /** Whether a refresh spends the refresh token and hands out a new one ("rotate", the default) or keeps it ("keep"). */
  refreshTokenRotation?: RefreshTokenRotation;
  /** A domain the session cookie is shared under (domain/checkSharedCookieDomain.ts); absent: host-only. */
  sessionCookieDomain?: string;
  /** How recent a session's authentication must be for sensitive /v2/me/* actions, in seconds (default 900). */
  reauthWindowSeconds?: number;
  /** Under refresh rotation "keep": a session unused this long ends (default 3 days). */
  keepIdleTimeoutSeconds?: number;
  /** Under refresh rotation "keep": a session ends this long after sign-in at the latest (default 7 days). */
  keepMaxLifetimeSeconds?: number;
  /** Days the ceremony service keeps the project's ceremony events (default 90, see domain/eventRetention.ts). */
  eventRetentionDays?: number;
  /** Clone detection policy (domain/cloneDetection.ts); absent: the default. */
  cloneDetection?: 'block' | 'record';
  /** Self-service sign-up/login (/v2/auth/*): served only when "enabled"; absent means disabled. */
  selfServiceFlows?: SelfServiceFlows;
  /**
   * The project's custom frontend host name (PUT /v2/projectConfig/cname, domain/updateCname.ts),
   * lower-case. Recorded and reported only: tokens, JWKS and links keep frontendApiUrl; the
   * operator's DNS and TLS make the host serve the frontend API.
   */
  cname?: string;
  /** Every active secret; more than one while a rotation is in progress. */
  apiSecrets: ApiSecretRecord[];
  signingKeys: SigningKeyRecord[];
  /** The `jti` of the project's client key. */
  clientKeyId: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface ProjectStore {
  insert(record: ProjectRecord): Promise<void>;
  find(projectId: string): Promise<ProjectRecord | null>;
  /** The oldest project with this name, if any. */
  findByName(name: string): Promise<ProjectRecord | null>;
  /** Every project, oldest first. */
  list(): Promise<ProjectRecord[]>;
  /**
   * Adds a secret (or, with replaceOthers, makes it the only one) as long as the project has fewer
   * than `maxSecrets` secrets. Null if the project does not exist or is at the limit.
   */
  addApiSecret(projectId: string, secret: ApiSecretRecord, opts: { replaceOthers: boolean; maxSecrets: number; now: Date }): Promise<ProjectRecord | null>;
  /** True if some project lists the origin (the one query that spans projects: CORS preflights name none). */
  anyAllowsOrigin(origin: string): Promise<boolean>;
  /** Adds an origin unless present; null if the project does not exist. */
  addOrigin(projectId: string, origin: string, now: Date): Promise<ProjectRecord | null>;
  /** Sets the connect roll-out and flags; null if the project does not exist. */
  updateConnectSettings(projectId: string, settings: { connectRollout?: ConnectRollout; connectFlags?: Record<string, string> }, now: Date): Promise<ProjectRecord | null>;
  /** Sets the session and refresh lifetimes (those given); null if the project does not exist. */
  updateSessionSettings(
    projectId: string,
    settings: Partial<Pick<ProjectRecord, 'sessionLifetimeSeconds' | 'refreshLifetimeSeconds' | 'refreshTokenRotation' | 'reauthWindowSeconds' | 'keepIdleTimeoutSeconds' | 'keepMaxLifetimeSeconds'>>,
    now: Date,
  ): Promise<ProjectRecord | null>;
  /**
   * Sets (a domain) or removes (null) the shared session cookie domain, only while the project's
   * RP ID and origins are still exactly the ones the domain was checked against; null otherwise.
   */
  updateSessionCookieDomain(projectId: string, domain: string | null, checked: { rpId: string; origins: string[] }, now: Date): Promise<ProjectRecord | null>;
  /** Sets the event retention (when given); null if the project does not exist. */
  updateEventSettings(projectId: string, settings: { eventRetentionDays?: number }, now: Date): Promise<ProjectRecord | null>;
  updatePasskeySettings(projectId: string, settings: { cloneDetection?: 'block' | 'record' }, now: Date): Promise<ProjectRecord | null>;
  /** Sets the custom frontend host name; null if the project does not exist. */
  updateCname(projectId: string, cname: string, now: Date): Promise<ProjectRecord | null>;
  /** Sets whether the self-service flows are served; null if the project does not exist. */
  updateSelfServiceFlows(projectId: string, selfServiceFlows: SelfServiceFlows, now: Date): Promise<ProjectRecord | null>;
  /**
   * Replaces the signing keys if the project still has exactly the keys `seenKids` (optimistic
   * concurrency: of two rotations at once only one wins, so neither drops the other's key). Null
   * if the project does not exist or its keys changed in between.
   */
  replaceSigningKeys(projectId: string, seenKids: string[], keys: SigningKeyRecord[], now: Date): Promise<ProjectRecord | null>;
}

export const projectIndexes: IndexPlan = {
  projects: [
    { key: { name: 1, createdAt: 1 }, name: 'name_created' },
    { key: { origins: 1 }, name: 'origins' },
  ],
};

export function mongoProjectStore(db: Db): ProjectStore {
  const coll: Collection<ProjectRecord> = db.collection('projects');
  return {
    async insert(record) {
      await coll.insertOne(record);
    },
    find(projectId) {
      return coll.findOne({ _id: projectId });
    },
    async findByName(name) {
      const [first] = await coll.find({ name }).sort({ createdAt: 1, _id: 1 }).limit(1).toArray();
      return first ?? null;
    },
    list() {
      return coll.find({}).sort({ createdAt: 1, _id: 1 }).toArray();
    },
    addApiSecret(projectId, secret, { replaceOthers, maxSecrets, now }) {
      if (replaceOthers) {
        return coll.findOneAndUpdate({ _id: projectId }, { $set: { apiSecrets: [secret], updatedAt: now } }, { returnDocument: 'after' });
      }
      // The guard and the push are one atomic update, so concurrent rotations cannot exceed the limit.
      return coll.findOneAndUpdate(
        { _id: projectId, [`apiSecrets.${maxSecrets - 1}`]: { $exists: false } },
        { $push: { apiSecrets: secret }, $set: { updatedAt: now } },
        { returnDocument: 'after' },
      );
    },
    async anyAllowsOrigin(origin) {
      return (await coll.findOne({ origins: origin }, { projection: { _id: 1 } })) !== null;
    },
    addOrigin(projectId, origin, now) {
      return coll.findOneAndUpdate({ _id: projectId }, { $addToSet: { origins: origin }, $set: { updatedAt: now } }, { returnDocument: 'after' });
    },
    updateConnectSettings(projectId, settings, now) {
      const set: Partial<ProjectRecord> = { updatedAt: now };
      if (settings.connectRollout !== undefined) set.connectRollout = settings.connectRollout;
      if (settings.connectFlags !== undefined) set.connectFlags = settings.connectFlags;
      return coll.findOneAndUpdate({ _id: projectId }, { $set: set }, { returnDocument: 'after' });
    },
    updateSessionSettings(projectId, settings, now) {
      const set: Partial<ProjectRecord> = { updatedAt: now };
      if (settings.sessionLifetimeSeconds !== undefined) set.sessionLifetimeSeconds = settings.sessionLifetimeSeconds;
      if (settings.refreshLifetimeSeconds !== undefined) set.refreshLifetimeSeconds = settings.refreshLifetimeSeconds;
      if (settings.refreshTokenRotation !== undefined) set.refreshTokenRotation = settings.refreshTokenRotation;
      if (settings.reauthWindowSeconds !== undefined) set.reauthWindowSeconds = settings.reauthWindowSeconds;
      if (settings.keepIdleTimeoutSeconds !== undefined) set.keepIdleTimeoutSeconds = settings.keepIdleTimeoutSeconds;
      if (settings.keepMaxLifetimeSeconds !== undefined) set.keepMaxLifetimeSeconds = settings.keepMaxLifetimeSeconds;
      return coll.findOneAndUpdate({ _id: projectId }, { $set: set }, { returnDocument: 'after' });
    },
    updateSessionCookieDomain(projectId, domain, checked, now) {
      // The origins in the filter: an origin added since the check fails the update instead of
      // ending up outside the domain (describeSessionCookie checks again on every read as well).
      const filter = { _id: projectId, rpId: checked.rpId, origins: { $size: checked.origins.length, $all: checked.origins } };
      const update = domain === null ? { $unset: { sessionCookieDomain: '' as const }, $set: { updatedAt: now } } : { $set: { sessionCookieDomain: domain, updatedAt: now } };
      return coll.findOneAndUpdate(filter, update, { returnDocument: 'after' });
    },
    updateEventSettings(projectId, settings, now) {
      const set: Partial<ProjectRecord> = { updatedAt: now };
      if (settings.eventRetentionDays !== undefined) set.eventRetentionDays = settings.eventRetentionDays;
      return coll.findOneAndUpdate({ _id: projectId }, { $set: set }, { returnDocument: 'after' });
    },
    updatePasskeySettings(projectId, settings, now) {
      const set: Partial<ProjectRecord> = { updatedAt: now };
      if (settings.cloneDetection !== undefined) set.cloneDetection = settings.cloneDetection;
      return coll.findOneAndUpdate({ _id: projectId }, { $set: set }, { returnDocument: 'after' });
    },
    updateCname(projectId, cname, now) {
      return coll.findOneAndUpdate({ _id: projectId }, { $set: { cname, updatedAt: now } }, { returnDocument: 'after' });
    },
    updateSelfServiceFlows(projectId, selfServiceFlows, now) {
      return coll.findOneAndUpdate({ _id: projectId }, { $set: { selfServiceFlows, updatedAt: now } }, { returnDocument: 'after' });
    },
    replaceSigningKeys(projectId, seenKids, keys, now) {
      // Same number of keys and every seen kid present: the key set is exactly the one seen.
      return coll.findOneAndUpdate(
        { _id: projectId, signingKeys: { $size: seenKids.length }, 'signingKeys.kid': { $all: seenKids } },
        { $set: { signingKeys: keys, updatedAt: now } },
        { returnDocument: 'after' },
      );
    },
  };
}
