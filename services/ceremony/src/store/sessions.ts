/**
 * Ceremony sessions (one per started append, login or mediation) in MongoDB. A session is
 * single-use: finishing consumes it with one guarded findOneAndUpdate (pending → completed), so a
 * replayed or concurrent second finish finds nothing. A used session (completed, or consumed by the
 * application through the backend API) is remembered for USED_SESSION_MEMORY_MS so the user's
 * challenge list can show it, then the TTL index sweeps it. Every query is scoped by project.
 */
import { Binary, type Collection, type Db } from 'mongodb';

export type CeremonyOperation = 'append' | 'login' | 'mediation';
export type UserVerificationPolicy = 'required' | 'preferred' | 'discouraged';
/** pending: open; completed: a finish used it (whatever its outcome); consumed: the application marked it used. */
export type SessionStatus = 'pending' | 'completed' | 'consumed';

/** How long a used session is kept for the user's challenge list (the TTL index then sweeps it). */
export const USED_SESSION_MEMORY_MS = 15 * 60 * 1000;

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
  /** The TTL index's field: the challenge's expiry while pending, the end of its memory once used. */
  expiresAt: Date;
  /** Absent on sessions stored before statuses existed: they are pending. */
  status?: SessionStatus;
  /** When the challenge stops being accepted (expiresAt keeps it while pending; absent on older sessions). */
  challengeExpiresAt?: Date;
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
  /** One page of the user's sessions (every status), in the order asked, with the number matching. */
  pageForUser(query: SessionPageQuery): Promise<{ items: SessionRecord[]; total: number }>;
  /**
   * Marks the user's pending session consumed (one guarded findOneAndUpdate) and returns it as it is
   * now; null when no pending session has this ID (then `find` tells why).
   */
  markConsumed(projectId: string, userId: string, id: string, now: Date): Promise<SessionRecord | null>;
  /** The user's session with this ID, any status; null if none. */
  find(projectId: string, userId: string, id: string): Promise<SessionRecord | null>;
}

export interface SessionPageQuery {
  projectId: string;
  userId: string;
  operations?: CeremonyOperation[];
  status?: SessionStatus;
  sort: { field: 'createdAt' | 'challengeExpiresAt'; direction: 'asc' | 'desc' };
  skip: number;
  limit: number;
}

/** Matches sessions no finish or application has used yet (older sessions have no status). */
const PENDING = { status: { $nin: ['completed', 'consumed'] as SessionStatus[] } };

/** What the used session keeps: the challenge's own expiry, and a TTL far enough out for the list. */
function usedUntil(now: Date): Date {
  return new Date(now.getTime() + USED_SESSION_MEMORY_MS);
}

export const SESSIONS = 'ceremony_sessions';

function scopeFilter(scope: SessionScope) {
  return {
    challenge: scope.challenge,
    projectId: scope.projectId,
    operation: scope.operation,
    ...(scope.userId !== undefined ? { userId: scope.userId } : {}),
    processId: { $in: scope.processIds },
    ...PENDING,
  };
}

function asDocument(session: SessionRecord): SessionDocument {
  const { allowed, ...fields } = session;
  // A new session is pending; its challenge's expiry is kept apart from the TTL field, which moves once it is used.
  const rest = { status: 'pending' as const, challengeExpiresAt: session.expiresAt, ...fields };
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
      const filter = { ...scopeFilter(scope), expiresAt: { $gt: now }, ...allowed };
      // The session is single-use: this guarded write moves it out of pending for good.
      return toRecord(await coll.findOneAndUpdate(filter, { $set: { status: 'completed', expiresAt: usedUntil(now) } }, { returnDocument: 'before' }));
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
    async pageForUser(q) {
      const filter = {
        projectId: q.projectId,
        userId: q.userId,
        ...(q.operations ? { operation: { $in: q.operations } } : {}),
        ...(q.status === undefined ? {} : q.status === 'pending' ? PENDING : { status: q.status }),
      };
      // Served by project_user_created; ties broken by _id so pages never overlap.
      const dir = q.sort.direction === 'asc' ? 1 : -1;
      const [docs, total] = await Promise.all([
        coll.find(filter).sort({ [q.sort.field]: dir, _id: dir }).skip(q.skip).limit(q.limit).toArray(),
        coll.countDocuments(filter),
      ]);
      return { items: docs.map((d) => toRecord(d) as SessionRecord), total };
    },
    async markConsumed(projectId, userId, id, now) {
      // Guarded on pending: a finish that got there first keeps its completed status.
      return toRecord(await coll.findOneAndUpdate({ _id: id, projectId, userId, ...PENDING }, { $set: { status: 'consumed', expiresAt: usedUntil(now) } }, { returnDocument: 'after' }));
    },
    async find(projectId, userId, id) {
      return toRecord(await coll.findOne({ _id: id, projectId, userId }));
    },
  };
}
