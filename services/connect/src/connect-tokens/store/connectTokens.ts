/** Connect token documents in MongoDB; every query is scoped by project except the lookup by secret hash. */
import type { Collection, Db, Filter, Sort } from 'mongodb';
import type { IndexPlan } from '../../../../runtime/mongo.js';

export type ConnectTokenType = 'passkey-append' | 'passkey-delete' | 'passkey-list';
export type ConnectTokenStatus = 'initial' | 'consumed';

export interface ConnectTokenRecord {
  /** `ctk-` and 20 digits. */
  _id: string;
  projectId: string;
  type: ConnectTokenType;
  /** As the application sent it (trimmed); not normalized, since it names the user in the application's terms. */
  identifier: string;
  displayName?: string;
  status: ConnectTokenStatus;
  /** Hex SHA-256 of the secret; the secret itself is never stored. */
  secretHash: string;
  /** The connect process that claimed the token (set by claim); only that process may consume it. */
  processId?: string;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  consumedAt?: Date;
}

/** The storage-neutral list query the connect tokens' list takes (parsed in domain/listConnectTokens.ts). */
export type ConnectTokenField = 'type' | 'status' | 'identifier';
export type ConnectTokenSortField = 'createdAt' | 'expiresAt';

export interface ConnectTokenCondition {
  field: ConnectTokenField;
  value: string;
}

export interface ConnectTokenSort {
  field: ConnectTokenSortField;
  direction: 'asc' | 'desc';
}

export interface ConnectTokenListQuery {
  /** All must hold. */
  conditions: ConnectTokenCondition[];
  /** Null: creation order. */
  sort: ConnectTokenSort | null;
  page: number;
  pageSize: number;
}

export interface ConnectTokenPage {
  items: ConnectTokenRecord[];
  total: number;
}

export interface ConnectTokenStore {
  insert(record: ConnectTokenRecord): Promise<void>;
  /** Not scoped by project (the secret is all the frontend presents): callers must check projectId. */
  findBySecretHash(secretHash: string): Promise<ConnectTokenRecord | null>;
  find(projectId: string, id: string): Promise<ConnectTokenRecord | null>;
  list(projectId: string, query: ConnectTokenListQuery): Promise<ConnectTokenPage>;
  /** Guarded: only an initial token unexpired at `now` whose processId is unset or equal; sets processId. Null when the guard failed. */
  claim(projectId: string, id: string, processId: string, now: Date): Promise<ConnectTokenRecord | null>;
  /** Guarded: initial, unexpired at `now` and claimed by processId → consumed (consumedAt = now). Null when the guard failed. */
  consume(projectId: string, id: string, processId: string, now: Date): Promise<ConnectTokenRecord | null>;
  /** Compensation after a failed use: consumed by processId → initial again (consumedAt unset). True if it was undone. */
  release(projectId: string, id: string, processId: string, now: Date): Promise<boolean>;
  /**
   * Status change from the backend API, only from status `from` (the domain decides the rules).
   * Moving to consumed also drops the claim, so a process that consumed the token before cannot
   * release it back to initial after the application revoked it.
   */
  setStatus(projectId: string, id: string, from: ConnectTokenStatus, to: ConnectTokenStatus, now: Date): Promise<ConnectTokenRecord | null>;
  /** True if the token existed in the project and is now gone. */
  delete(projectId: string, id: string): Promise<boolean>;
}

/** Expired tokens stay listable for a week (the application sees them with their `expires`), then the TTL index sweeps them. */
export const RETENTION_AFTER_EXPIRY_SECONDS = 7 * 24 * 3600;

export const connectTokenIndexes: IndexPlan = {
  connect_tokens: [
    // The frontend presents only the secret; its hash finds the token. Unique, so two tokens can never share one.
    { key: { secretHash: 1 }, name: 'secret_hash_unique', unique: true },
    { key: { projectId: 1, createdAt: 1 }, name: 'project_created' },
    // TTL sweeps are lazy and come after the grace period: expiry is always checked in code.
    { key: { expiresAt: 1 }, name: 'expiry_ttl', expireAfterSeconds: RETENTION_AFTER_EXPIRY_SECONDS },
  ],
};

const COLUMNS: Record<ConnectTokenField | ConnectTokenSortField, keyof ConnectTokenRecord> = {
  type: 'type',
  status: 'status',
  identifier: 'identifier',
  createdAt: 'createdAt',
  expiresAt: 'expiresAt',
};

export function mongoConnectTokenStore(db: Db): ConnectTokenStore {
  const coll: Collection<ConnectTokenRecord> = db.collection('connect_tokens');
  const after = { returnDocument: 'after' } as const;
  return {
    async insert(record) {
      await coll.insertOne(record);
    },
    findBySecretHash(secretHash) {
      return coll.findOne({ secretHash });
    },
    find(projectId, id) {
      return coll.findOne({ _id: id, projectId });
    },
    async list(projectId, query) {
      const filter: Filter<ConnectTokenRecord> = { projectId };
      const and = query.conditions.map((c) => ({ [COLUMNS[c.field satisfies ConnectTokenField]]: c.value }));
      if (and.length) filter.$and = and;
      // Creation time then ID as tie-breakers keep pages stable when the sort field has equal values.
      const sort: Sort = query.sort
        ? { [COLUMNS[query.sort.field]]: query.sort.direction === 'asc' ? 1 : -1, ...(query.sort.field === 'createdAt' ? {} : { createdAt: 1 }), _id: 1 }
        : { createdAt: 1, _id: 1 };
      const [items, total] = await Promise.all([
        coll.find(filter).sort(sort).skip((query.page - 1) * query.pageSize).limit(query.pageSize).toArray(),
        coll.countDocuments(filter),
      ]);
      return { items, total };
    },
    claim(projectId, id, processId, now) {
      // Re-claiming by the same process succeeds (a retried start); another process finds nothing.
      return coll.findOneAndUpdate(
        { _id: id, projectId, status: 'initial', expiresAt: { $gt: now }, $or: [{ processId: { $exists: false } }, { processId }] },
        { $set: { processId, updatedAt: now } },
        after,
      );
    },
    consume(projectId, id, processId, now) {
      // Requiring status initial makes this single-use: of two concurrent consumes only one matches.
      return coll.findOneAndUpdate(
        { _id: id, projectId, status: 'initial', processId, expiresAt: { $gt: now } },
        { $set: { status: 'consumed', consumedAt: now, updatedAt: now } },
        after,
      );
    },
    async release(projectId, id, processId, now) {
      const r = await coll.updateOne({ _id: id, projectId, status: 'consumed', processId }, { $set: { status: 'initial', updatedAt: now }, $unset: { consumedAt: '' } });
      return r.modifiedCount === 1;
    },
    setStatus(projectId, id, from, to, now) {
      const guard = { _id: id, projectId, status: from };
      if (to === 'consumed') {
        // A token consumed before keeps its first consumption time.
        const set = from === 'consumed' ? { updatedAt: now } : { status: to, consumedAt: now, updatedAt: now };
        return coll.findOneAndUpdate(guard, { $set: set, $unset: { processId: '' } }, after);
      }
      return coll.findOneAndUpdate(guard, { $set: { status: to, updatedAt: now }, $unset: { consumedAt: '' } }, after);
    },
    async delete(projectId, id) {
      const r = await coll.deleteOne({ _id: id, projectId });
      return r.deletedCount === 1;
    },
  };
}
