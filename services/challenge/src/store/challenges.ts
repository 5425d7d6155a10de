/** Challenge documents in MongoDB; every query is scoped by project. */
import type { Collection, Db } from 'mongodb';
import type { IndexPlan } from '../../../runtime/mongo.js';
import { outboxIndexes } from '../../../runtime/outbox.js';

export type ChallengeType = 'email_otp' | 'email_link' | 'sms_otp';

export type ChallengeStatus = 'pending' | 'completed' | 'expired';

/** Why a challenge expired: its lifetime ended, or it took too many wrong values. */
export type ExpiryReason = 'lifetime' | 'attempts';

export interface ChallengeRecord {
  _id: string;
  projectId: string;
  userId: string;
  type: ChallengeType;
  identifierValue: string;
  /** HMAC of the value; the value itself is never stored. */
  valueHash: string;
  status: ChallengeStatus;
  /** Wrong values received so far. */
  attempts: number;
  metadata: Record<string, unknown>;
  /**
   * The end user's network address the challenge was created for: B1's
   * clientInformation.remoteAddress, or the browser's address in the frontend flows. Verification
   * attempts are limited per this address (the backend API's caller is the application's server,
   * whose address says nothing about who is guessing).
   */
  clientAddress?: string;
  createdAt: Date;
  expiresAt: Date;
  /** Set when the right value arrived. */
  completedAt?: Date;
  /** Set when the expiry was written (lazily, by the first read or verification that saw it). */
  expiredAt?: Date;
  expiredReason?: ExpiryReason;
}

/** The three facts that scope every lookup: a challenge is only ever found by its own project and user. */
export interface ChallengeKey {
  projectId: string;
  userId: string;
  challengeId: string;
}

export interface ChallengeStore {
  insert(record: ChallengeRecord): Promise<void>;
  find(key: ChallengeKey): Promise<ChallengeRecord | null>;
  /**
   * pending → completed, only while the challenge is pending, unexpired at `now` and under
   * `maxAttempts` wrong values; the updated record, or null when that guard did not hold.
   */
  complete(key: ChallengeKey, now: Date, maxAttempts: number): Promise<ChallengeRecord | null>;
  /** Counts one wrong value under the same guard as `complete`; the updated record, or null. */
  addWrongAttempt(key: ChallengeKey, now: Date, maxAttempts: number): Promise<ChallengeRecord | null>;
  /** pending → expired (idempotent: only a pending record changes); the updated record, or null. */
  expire(key: ChallengeKey, now: Date, reason: ExpiryReason): Promise<ChallengeRecord | null>;
  deleteForUser(projectId: string, userId: string): Promise<number>;
  /** Removes one challenge (a delivery that failed must not leave a usable challenge behind). */
  remove(projectId: string, challengeId: string): Promise<void>;
}

/** Expired challenges are kept for a week (audit, "expired" answers), then swept by the TTL index. */
export const RETENTION_AFTER_EXPIRY_SECONDS = 7 * 24 * 3600;

/** rate-limiter-flexible's documents: one per limited key, removed by TTL once its window is over. */
export const RATE_LIMIT_COLLECTION = 'rate_limits';

/** The challenge service's event outbox (services/runtime/outbox.ts): challenge.locked. */
export const CHALLENGE_OUTBOX = 'challenge_outbox';

export const challengeIndexes: IndexPlan = {
  ...outboxIndexes(CHALLENGE_OUTBOX),
  challenges: [
    { key: { projectId: 1, userId: 1 }, name: 'project_user' },
    { key: { expiresAt: 1 }, name: 'expiry_ttl', expireAfterSeconds: RETENTION_AFTER_EXPIRY_SECONDS },
  ],
  // The indexes RateLimiterMongo would create itself, declared here so they exist before the first request.
  [RATE_LIMIT_COLLECTION]: [
    { key: { key: 1 }, name: 'key_unique', unique: true },
    { key: { expire: -1 }, name: 'expire_ttl', expireAfterSeconds: 0 },
  ],
};

export function mongoChallengeStore(db: Db): ChallengeStore {
  const coll: Collection<ChallengeRecord> = db.collection('challenges');
  const byKey = (key: ChallengeKey) => ({ _id: key.challengeId, projectId: key.projectId, userId: key.userId });
  // The guard of both verification updates: the single-document condition that makes them race-free.
  const open = (key: ChallengeKey, now: Date, maxAttempts: number) => ({
    ...byKey(key),
    status: 'pending' as const,
    expiresAt: { $gt: now },
    attempts: { $lt: maxAttempts },
  });
  return {
    async insert(record) {
      await coll.insertOne(record);
    },
    async find(key) {
      return coll.findOne(byKey(key));
    },
    async complete(key, now, maxAttempts) {
      return coll.findOneAndUpdate(open(key, now, maxAttempts), { $set: { status: 'completed', completedAt: now } }, { returnDocument: 'after' });
    },
    async addWrongAttempt(key, now, maxAttempts) {
      return coll.findOneAndUpdate(open(key, now, maxAttempts), { $inc: { attempts: 1 } }, { returnDocument: 'after' });
    },
    async expire(key, now, reason) {
      return coll.findOneAndUpdate(
        { ...byKey(key), status: 'pending' },
        { $set: { status: 'expired', expiredAt: now, expiredReason: reason } },
        { returnDocument: 'after' },
      );
    },
    async remove(projectId, challengeId) {
      await coll.deleteOne({ _id: challengeId, projectId });
    },
    async deleteForUser(projectId, userId) {
      const r = await coll.deleteMany({ projectId, userId });
      return r.deletedCount;
    },
  };
}
