/**
 * Ceremony sessions (one per started append, login or mediation) in MongoDB. A session is
 * single-use: finishing consumes it with one findOneAndDelete, so a replayed or concurrent second
 * finish finds nothing. Every query is scoped by project.
 */
import { Binary, type Collection, type Db } from 'mongodb';

export type CeremonyOperation = 'append' | 'login' | 'mediation';
export type UserVerificationPolicy = 'required' | 'preferred' | 'discouraged';

export interface SessionRecord {
  /** "pch-…": returned as passkeyData.challengeID. */
  _id: string;
  projectId: string;
  operation: CeremonyOperation;
  /** The user the ceremony is for; "" for mediation, which learns the user only at the finish. */
  userId: string;
  /** The user name of an append (shown by the authenticator, stored with the passkey); "" otherwise. */
  username: string;
  /** The application's process; "" when a mediation was started without one. */
  processId: string;
  /** The WebAuthn challenge, base64url; unique. */
  challenge: string;
  /** The RP ID the options named: the response must be scoped to it. */
  rpId: string;
  /** The project's user verification policy when the ceremony started. */
  userVerification: UserVerificationPolicy;
  /** Where the application offered an append (B2 situation); "" otherwise. */
  situation: string;
  /** Append: the WebAuthn user handle (base64url) the options named, kept with the new passkey. */
  userHandle?: string;
  /**
   * Login: what verifying needs of each passkey the options allowed, read once at the start so
   * the finish verifies without reading the passkeys again.
   */
  allowed?: AllowedCredential[];
  createdAt: Date;
  expiresAt: Date;
}

/** A passkey as a login start saw it: enough to verify an assertion made with it. */
export interface AllowedCredential {
  /** "cre-…" */
  id: string;
  credentialId: string;
  publicKey: Uint8Array;
  /** The signature counter at the start; the finish's guarded write decides against the current one. */
  counter: number;
  /** The passkey's WebAuthn user handle (base64url), when it was stored with the passkey. */
  userHandle?: string;
  /** Set when the passkey was flagged as possibly cloned. */
  cloneDetectedAt?: Date;
}

type SessionDocument = Omit<SessionRecord, 'allowed'> & { allowed?: (Omit<AllowedCredential, 'publicKey'> & { publicKey: Binary })[] };

/** What a finish must match to consume a session. */
export interface SessionScope {
  projectId: string;
  operation: CeremonyOperation;
  challenge: string;
  /** Omitted for mediation (the user is not known when it starts). */
  userId?: string;
  /** Any of these process IDs matches (mediation accepts the finish's process or "" from a start without one). */
  processIds: string[];
}

export interface SessionStore {
  insert(session: SessionRecord): Promise<void>;
  /**
   * Deletes and returns the unexpired session matching the scope, or null. With `credentialId`,
   * only a session whose start allowed that passkey matches.
   */
  consume(scope: SessionScope, now: Date, credentialId?: string): Promise<SessionRecord | null>;
  /** Deletes an expired session matching the scope; true if there was one. */
  discardExpired(scope: SessionScope, now: Date): Promise<boolean>;
  /**
   * The project's session with this challenge, expired or not, without consuming it; null if none.
   * Read-only: for attributing what a client reports about a ceremony, never for finishing one.
   */
  findByChallenge(projectId: string, challenge: string): Promise<SessionRecord | null>;
  deleteForUser(projectId: string, userId: string): Promise<number>;
}

export const SESSIONS = 'ceremony_sessions';

function scopeFilter(scope: SessionScope) {
  return {
    challenge: scope.challenge,
    projectId: scope.projectId,
    operation: scope.operation,
    ...(scope.userId !== undefined ? { userId: scope.userId } : {}),
    processId: { $in: scope.processIds },
  };
}

function asDocument(session: SessionRecord): SessionDocument {
  const { allowed, ...rest } = session;
  return allowed ? { ...rest, allowed: allowed.map((a) => ({ ...a, publicKey: new Binary(a.publicKey) })) } : rest;
}

function toRecord(doc: SessionDocument | null): SessionRecord | null {
  if (!doc) return null;
  const { allowed, ...rest } = doc;
  return allowed ? { ...rest, allowed: allowed.map((a) => ({ ...a, publicKey: new Uint8Array(a.publicKey.buffer) })) } : rest;
}

export function mongoSessionStore(db: Db): SessionStore {
  const coll: Collection<SessionDocument> = db.collection(SESSIONS);
  return {
    async insert(session) {
      await coll.insertOne(asDocument(session));
    },
    async consume(scope, now, credentialId) {
      // The expiry is checked here too: the TTL sweep is lazy and must not decide validity.
      const allowed = credentialId !== undefined ? { 'allowed.credentialId': credentialId } : {};
      return toRecord(await coll.findOneAndDelete({ ...scopeFilter(scope), expiresAt: { $gt: now }, ...allowed }));
    },
    async discardExpired(scope, now) {
      const r = await coll.deleteOne({ ...scopeFilter(scope), expiresAt: { $lte: now } });
      return r.deletedCount === 1;
    },
    async findByChallenge(projectId, challenge) {
      return toRecord(await coll.findOne({ challenge, projectId }));
    },
    async deleteForUser(projectId, userId) {
      const r = await coll.deleteMany({ projectId, userId });
      return r.deletedCount;
    },
  };
}
