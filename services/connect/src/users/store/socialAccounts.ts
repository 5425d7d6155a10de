/**
 * Social account documents in MongoDB: the social identities (provider accounts) the application
 * reports as linked to its users. Every query is scoped by project.
 */
import { MongoServerError, type Collection, type Db, type Filter, type Sort } from 'mongodb';
import type { IndexPlan } from '../../../../runtime/mongo.js';

export type SocialProviderType = 'google' | 'microsoft' | 'github';

export interface SocialAccountRecord {
  /** `soc-` and 20 digits. */
  _id: string;
  projectId: string;
  userId: string;
  providerType: SocialProviderType;
  /** What the provider identifies the account by (usually an email address), trimmed. */
  identifierValue: string;
  /** The provider's user ID; unique per project and provider. */
  foreignId: string;
  /** "" when the provider has none. */
  avatarUrl: string;
  /** "" when the provider has none. */
  fullName: string;
  createdAt: Date;
}

/** The storage-neutral list query (parsed in domain/socialAccountListQuery.ts). */
export type SocialAccountField = 'providerType' | 'identifierValue' | 'foreignId' | 'userId';
export type SocialAccountSortField = SocialAccountField | 'createdAt';

export interface SocialAccountListQuery {
  /** All must hold; each an equality on the field. */
  conditions: { field: SocialAccountField; value: string }[];
  /** Null: creation order. */
  sort: { field: SocialAccountSortField; direction: 'asc' | 'desc' } | null;
  page: number;
  pageSize: number;
}

export interface SocialAccountStore {
  /** 'duplicate' if the project already has an account of this provider with this foreign ID. */
  insert(record: SocialAccountRecord): Promise<'created' | 'duplicate'>;
  /** The user's accounts, oldest first, at most `limit` (the limit check reads them). */
  listForUser(projectId: string, userId: string, limit: number): Promise<SocialAccountRecord[]>;
  /** True if the account existed (for that user, in that project) and is now gone. */
  delete(projectId: string, userId: string, socialAccountId: string): Promise<boolean>;
  deleteForUser(projectId: string, userId: string): Promise<number>;
  /** One page of the project's accounts (with `userId` among the conditions: of one user) and the total. */
  list(projectId: string, query: SocialAccountListQuery): Promise<{ items: SocialAccountRecord[]; total: number }>;
}

export const SOCIAL_ACCOUNTS = 'social_accounts';

export const socialAccountIndexes: IndexPlan = {
  [SOCIAL_ACCOUNTS]: [
    // One record per provider account in a project; inserts rely on it (no check-then-insert race).
    { key: { projectId: 1, providerType: 1, foreignId: 1 }, name: 'project_provider_foreign_unique', unique: true },
    // A user's accounts in creation order: the per-user list, the limit check and a user's deletion.
    { key: { projectId: 1, userId: 1, createdAt: 1 }, name: 'project_user_created' },
    // The project-wide list in creation order (its default sort).
    { key: { projectId: 1, createdAt: 1 }, name: 'project_created' },
    // Filters by the reported identifier (e.g. "which user has this Google email").
    { key: { projectId: 1, identifierValue: 1 }, name: 'project_identifier_value' },
  ],
};

const DUPLICATE_KEY = 11000;

export function mongoSocialAccountStore(db: Db): SocialAccountStore {
  const coll: Collection<SocialAccountRecord> = db.collection(SOCIAL_ACCOUNTS);
  return {
    async insert(record) {
      try {
        await coll.insertOne(record);
        return 'created';
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return 'duplicate';
        throw err;
      }
    },
    listForUser(projectId, userId, limit) {
      return coll.find({ projectId, userId }).sort({ createdAt: 1, _id: 1 }).limit(limit).toArray();
    },
    async delete(projectId, userId, socialAccountId) {
      const r = await coll.deleteOne({ _id: socialAccountId, projectId, userId });
      return r.deletedCount === 1;
    },
    async deleteForUser(projectId, userId) {
      const r = await coll.deleteMany({ projectId, userId });
      return r.deletedCount;
    },
    async list(projectId, query) {
      const filter: Filter<SocialAccountRecord> = { projectId };
      // $and: two conditions on one field with different values match nothing, as they should.
      if (query.conditions.length) filter.$and = query.conditions.map((c) => ({ [c.field]: c.value }));
      // Creation time then ID as tie-breakers keep pages stable when the sort field has equal values.
      const sort: Sort = query.sort
        ? { [query.sort.field]: query.sort.direction === 'asc' ? 1 : -1, ...(query.sort.field === 'createdAt' ? {} : { createdAt: 1 }), _id: 1 }
        : { createdAt: 1, _id: 1 };
      const [items, total] = await Promise.all([
        coll.find(filter).sort(sort).skip((query.page - 1) * query.pageSize).limit(query.pageSize).toArray(),
        coll.countDocuments(filter),
      ]);
      return { items, total };
    },
  };
}
