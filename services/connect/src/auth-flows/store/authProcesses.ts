/** Auth processes of the passkey-first sign-up and login (F1, F2 and their blocks); scoped by project. */
import type { Collection, Db, Filter } from 'mongodb';
import type { IndexPlan } from '../../../../runtime/mongo.js';
import type { IdentifierType } from '../../users/index.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';

export type AuthType = 'signup' | 'login';
export type BlockType = 'signup-init' | 'login-init' | 'passkey-append' | 'passkey-verify' | 'email-verify' | 'phone-verify' | 'passkey-appended' | 'completed';
export type VerificationMethod = 'email-otp' | 'email-link' | 'phone-otp';

export interface AuthProcessRecord {
  /** `apr-` and 20 digits; the process token's `sub`. */
  _id: string;
  projectId: string;
  status: 'active' | 'completed';
  authType: AuthType;
  /** The block the page shows now; every step moves it with a guarded update. */
  block: BlockType;
  client?: ClientSnapshot;
  clientEnvHandle?: string;
  /** The user the flow is for (created pending at sign-up, found at login). */
  userId?: string;
  /** The identifier the flow runs on: the one typed at login, the first (email first) at sign-up. */
  identifier?: { id: string; type: IdentifierType; value: string };
  /** Sign-up: every identifier created for the user. */
  identifierIds?: string[];
  /** Ownership of `identifier` proven in this process (a code or link); `proof` says of which value. */
  verified: boolean;
  /**
   * What the code proved: the identifier, the value the code was sent to (as the challenge service
   * recorded it) and the challenge. Claims are written with a guard on this value, so a value
   * changed after the code was sent is never the one marked verified.
   */
  proof?: ProcessProof;
  /** A passkey was created (sign-up or after login) or used (login) in this process. */
  passkeyAppended: boolean;
  passkeyUsed: boolean;
  /** The ceremony type of the passkey appended or used (for passkeyOperation). */
  ceremonyType?: string;
  /** The pending challenge of a verification block, and the value it was sent to. */
  challenge?: { id: string; method: VerificationMethod; sentAt: Date; value?: string };
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
}

/** A code's proof of an identifier's value (AuthProcessRecord.proof). */
export interface ProcessProof {
  identifierId: string;
  value: string;
  challengeId: string;
}

/**
 * Further preconditions of a step, beside its blocks: the process still runs on this identifier
 * value, still names this pending challenge, still holds this proof (null: none). A step that
 * acts on what it read (a code checked against a challenge, a value changed) names what it read,
 * so a concurrent change of the identifier makes it fail instead of mixing old and new.
 */
export interface ProcessGuard {
  identifierValue?: string;
  challengeId?: string | null;
  proofChallengeId?: string | null;
}

/**
 * One event the web SDK reported: a passkey ceremony that failed or was cancelled, and the like.
 * Only a digest of the free-form challenge is kept (see domain/recordProcessEvent.ts).
 */
export interface ProcessEvent {
  /** One of the reference's event types (the gateway checked it): at most 44 characters. */
  type: string;
  /** SHA-256 (base64url, 43 characters) of the challenge (ceremony options) the SDK named, if any. */
  challengeSha256?: string;
  /** The challenge's length in characters, kept beside its digest. */
  challengeLength?: number;
  at: Date;
}

/**
 * Events kept per process: the SDK reports a handful per flow; a page that sends more keeps the
 * newest. With the digest instead of the challenge, the worst case (MAX_PROCESS_EVENTS events of
 * the longest type, each with a 65,536-character challenge) adds 3,243 bytes to the process
 * document, measured with bson's calculateObjectSize in test/authFlows.test.ts; before, each event
 * kept its challenge and the same input stored 1,312,563 bytes per process (1.3 MB).
 */
export const MAX_PROCESS_EVENTS = 20;

/** The stored document: the process and the events reported on it, which no step reads. */
type StoredAuthProcess = AuthProcessRecord & { events?: ProcessEvent[] };

/** Every read of a process leaves the events out: no step decides on them, so none carries them. */
const WITHOUT_EVENTS = { events: 0 } as const;

export interface AuthProcessStore {
  insert(record: AuthProcessRecord): Promise<void>;
  find(projectId: string, id: string): Promise<AuthProcessRecord | null>;
  /**
   * Moves an active, unexpired process on, but only from one of the blocks given: of two racing
   * steps one wins, and a finished or expired process never moves again. Null when nothing matched.
   */
  advance(projectId: string, id: string, from: readonly BlockType[], set: Partial<AuthProcessRecord>, now: Date, guard?: ProcessGuard): Promise<AuthProcessRecord | null>;
  /** Appends an event to an unexpired process (keeping the newest MAX_PROCESS_EVENTS); false when there is none. */
  appendEvent(projectId: string, id: string, event: ProcessEvent, now: Date): Promise<boolean>;
}

const KEEP_AFTER_EXPIRY_SECONDS = 86_400;

export const authProcessIndexes: IndexPlan = {
  auth_processes: [
    { key: { expiresAt: 1 }, name: 'expires_ttl', expireAfterSeconds: KEEP_AFTER_EXPIRY_SECONDS },
    { key: { projectId: 1, createdAt: 1 }, name: 'project_created' },
  ],
};

export function mongoAuthProcessStore(db: Db): AuthProcessStore {
  const coll: Collection<StoredAuthProcess> = db.collection('auth_processes');
  return {
    async insert(record) {
      await coll.insertOne(record);
    },
    find(projectId, id) {
      return coll.findOne({ _id: id, projectId }, { projection: WITHOUT_EVENTS });
    },
    advance(projectId, id, from, set, now, guard = {}) {
      const filter: Filter<AuthProcessRecord> = { _id: id, projectId, status: 'active', expiresAt: { $gt: now }, block: { $in: [...from] } };
      if (guard.identifierValue !== undefined) filter['identifier.value'] = guard.identifierValue;
      // null matches a missing (or unset, stored as null) challenge or proof as well.
      if (guard.challengeId !== undefined) filter['challenge.id'] = guard.challengeId;
      if (guard.proofChallengeId !== undefined) filter['proof.challengeId'] = guard.proofChallengeId;
      return coll.findOneAndUpdate(
        filter,
        { $set: { ...set, updatedAt: now } },
        { returnDocument: 'after', projection: WITHOUT_EVENTS },
      );
    },
    async appendEvent(projectId, id, event, now) {
      const r = await coll.updateOne({ _id: id, projectId, expiresAt: { $gt: now } }, { $push: { events: { $each: [event], $slice: -MAX_PROCESS_EVENTS } } });
      return r.matchedCount === 1;
    },
  };
}
