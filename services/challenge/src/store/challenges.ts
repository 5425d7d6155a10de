/** Challenge documents in MongoDB; every query is scoped by project. */
import type { Collection, Db } from 'mongodb';
import type { IndexPlan } from '../../../runtime/mongo.js';
import type { ChallengeType } from '../domain/challengeRules.js';

export interface ChallengeRecord {
  _id: string;
  projectId: string;
  userId: string;
  type: ChallengeType;
  identifierValue: string;
  /** HMAC of the value; the value itself is never stored. */
  valueHash: string;
  status: 'pending' | 'completed' | 'expired';
  attempts: number;
  metadata: Record<string, unknown>;
  createdAt: Date;
  expiresAt: Date;
}

export interface ChallengeStore {
  insert(record: ChallengeRecord): Promise<void>;
  deleteForUser(projectId: string, userId: string): Promise<number>;
}

/** Expired challenges are kept for a week (audit, "expired" answers), then swept by the TTL index. */
export const RETENTION_AFTER_EXPIRY_SECONDS = 7 * 24 * 3600;

export const challengeIndexes: IndexPlan = {
  challenges: [
    { key: { projectId: 1, userId: 1 }, name: 'project_user' },
    { key: { expiresAt: 1 }, name: 'expiry_ttl', expireAfterSeconds: RETENTION_AFTER_EXPIRY_SECONDS },
  ],
};

export function mongoChallengeStore(db: Db): ChallengeStore {
  const coll: Collection<ChallengeRecord> = db.collection('challenges');
  return {
    async insert(record) {
      await coll.insertOne(record);
    },
    async deleteForUser(projectId, userId) {
      const r = await coll.deleteMany({ projectId, userId });
      return r.deletedCount;
    },
  };
}
