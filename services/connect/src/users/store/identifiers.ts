/** Login identifier documents in MongoDB; every query is scoped by project. */
import { MongoServerError, type Collection, type Db, type Filter, type Sort } from 'mongodb';
import type { IndexPlan } from '../../../../runtime/mongo.js';

export type IdentifierType = 'email' | 'phone' | 'username';
export type IdentifierStatus = 'pending' | 'primary' | 'verified';

/** The storage-neutral list query the identifiers' list takes (parsed in domain/parseIdentifierListQuery.ts). */
export type IdentifierField = 'value' | 'type' | 'userId' | 'status';
export type IdentifierSortField = IdentifierField | 'createdAt';

export interface IdentifierCondition {
  field: IdentifierField;
  value: string;
}

export interface IdentifierSort {
  field: IdentifierSortField;
  direction: 'asc' | 'desc';
}

export interface IdentifierListQuery {
  /** All must hold. */
  conditions: IdentifierCondition[];
  /** Null: creation order. */
  sort: IdentifierSort | null;
  page: number;
  pageSize: number;
}

export interface IdentifierRecord {
  /** `ide-` and 20 digits. */
  _id: string;
  projectId: string;
  userId: string;
  type: IdentifierType;
  /** Normalized (see domain/identifierRules.ts); unique per project and type. */
  value: string;
  status: IdentifierStatus;
  createdAt: Date;
  updatedAt: Date;
}

export interface IdentifierPage {
  items: IdentifierRecord[];
  total: number;
}

export interface IdentifierStore {
  /** 'duplicate' if the project already has an identifier of this type and value. */
  insert(record: IdentifierRecord): Promise<'created' | 'duplicate'>;
  /** Sets the status; with `from`, only an identifier in that status changes (null otherwise). */
  updateStatus(projectId: string, userId: string, identifierId: string, status: IdentifierStatus, now: Date, from?: IdentifierStatus): Promise<IdentifierRecord | null>;
  /**
   * Changes the value (and status) of the user's identifier in one update: 'duplicate' if the
   * project's unique index already holds the value, 'missing' if the identifier is not the user's.
   */
  updateValue(projectId: string, userId: string, identifierId: string, value: string, status: IdentifierStatus, now: Date): Promise<IdentifierRecord | 'duplicate' | 'missing'>;
  /** True if the identifier existed (for that user, in that project) and is now gone. */
  delete(projectId: string, userId: string, identifierId: string): Promise<boolean>;
  deleteForUser(projectId: string, userId: string): Promise<number>;
  /** The identifier of this type and normalized value in the project (served by the unique index). */
  findByValue(projectId: string, type: IdentifierType, value: string): Promise<IdentifierRecord | null>;
  /** The user's identifiers, oldest first. */
  listForUser(projectId: string, userId: string): Promise<IdentifierRecord[]>;
  list(projectId: string, query: IdentifierListQuery): Promise<IdentifierPage>;
}

export const identifierIndexes: IndexPlan = {
  identifiers: [
    // One identifier value per type per project; the insert relies on it (no check-then-insert race).
    { key: { projectId: 1, type: 1, value: 1 }, name: 'project_type_value_unique', unique: true },
    { key: { projectId: 1, userId: 1 }, name: 'project_user' },
    { key: { projectId: 1, createdAt: 1 }, name: 'project_created' },
  ],
};

const DUPLICATE_KEY = 11000;

const COLUMNS: Record<IdentifierSortField, keyof IdentifierRecord> = {
  value: 'value',
  type: 'type',
  userId: 'userId',
  status: 'status',
  createdAt: 'createdAt',
};

export function mongoIdentifierStore(db: Db): IdentifierStore {
  const coll: Collection<IdentifierRecord> = db.collection('identifiers');
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
    updateStatus(projectId, userId, identifierId, status, now, from) {
      return coll.findOneAndUpdate({ _id: identifierId, projectId, userId, ...(from ? { status: from } : {}) }, { $set: { status, updatedAt: now } }, { returnDocument: 'after' });
    },
    async updateValue(projectId, userId, identifierId, value, status, now) {
      try {
        const updated = await coll.findOneAndUpdate({ _id: identifierId, projectId, userId }, { $set: { value, status, updatedAt: now } }, { returnDocument: 'after' });
        return updated ?? 'missing';
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return 'duplicate';
        throw err;
      }
    },
    async delete(projectId, userId, identifierId) {
      const r = await coll.deleteOne({ _id: identifierId, projectId, userId });
      return r.deletedCount === 1;
    },
    async deleteForUser(projectId, userId) {
      const r = await coll.deleteMany({ projectId, userId });
      return r.deletedCount;
    },
    findByValue(projectId, type, value) {
      return coll.findOne({ projectId, type, value });
    },
    listForUser(projectId, userId) {
      return coll.find({ projectId, userId }).sort({ createdAt: 1, _id: 1 }).toArray();
    },
    async list(projectId, query) {
      const filter: Filter<IdentifierRecord> = { projectId };
      const and = query.conditions.map((c) => ({ [COLUMNS[c.field satisfies IdentifierField]]: c.value }));
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
  };
}
