/** Login identifier documents in MongoDB; every query is scoped by project. */
import { MongoServerError, type Collection, type Db, type Filter, type Sort } from 'mongodb';
import type { IndexPlan } from '../../../../runtime/mongo.js';

export type IdentifierType = 'email' | 'phone' | 'username';
export type IdentifierStatus = 'pending' | 'primary' | 'verified';
/**
 * Who put the identifier on the user. `application`: the application's server, through the backend
 * API or a connect token it issued for its signed-in user; it vouches for the value. `self`: the
 * person at the browser (a sign-up, a signed-in user adding or changing one); the value is only
 * asserted until a code sent to it proves it.
 */
export type IdentifierSource = 'application' | 'self';

/** The storage-neutral list query the identifiers' list takes (parsed in domain/identifierListQuery.ts). */
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
  /** Missing on documents written before sources were recorded (see prepareIdentifierClaims). */
  source?: IdentifierSource;
  /**
   * The value is this user's by the project's word: the application vouched for it or its owner
   * proved it (see isClaimedIdentifier). Only claimed values are unique per project and type, and
   * only they log anyone in, block a sign-up or resolve a connect flow; an unclaimed value is an
   * assertion, and several people may assert the same one until one of them proves it.
   */
  claimed: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** Whether a new or changed identifier is claimed: vouched for by the application, or proven. */
export function isClaimedIdentifier(identifier: Pick<IdentifierRecord, 'source' | 'status'>): boolean {
  return identifier.source === 'application' || identifier.status === 'verified' || identifier.status === 'primary';
}

export interface IdentifierPage {
  items: IdentifierRecord[];
  total: number;
}

export interface IdentifierStore {
  /** 'duplicate' if the record is claimed and the project already has a claimed identifier of this type and value. */
  insert(record: IdentifierRecord): Promise<'created' | 'duplicate'>;
  /**
   * Sets the status and claim (and, given, the source). With `guard.from` only an identifier in that
   * status changes, with `guard.value` only one still holding that value (null otherwise: a proof
   * binds to the value it proved). 'duplicate' if it would claim a value another identifier of the
   * project has claimed.
   */
  updateStatus(
    projectId: string,
    userId: string,
    identifierId: string,
    change: { status: IdentifierStatus; claimed: boolean; source?: IdentifierSource },
    now: Date,
    guard?: { from?: IdentifierStatus; value?: string },
  ): Promise<IdentifierRecord | 'duplicate' | null>;
  /**
   * Changes the value (and status) of the user's identifier in one update: 'duplicate' if the
   * project's unique index already holds the value, 'missing' if the identifier is not the user's
   * or, with `guard.value` (`guard.claimed`), no longer holds that value (claim): a concurrent
   * change or proof won.
   */
  updateValue(
    projectId: string,
    userId: string,
    identifierId: string,
    change: { value: string; status: IdentifierStatus; claimed: boolean },
    now: Date,
    guard?: { value?: string; claimed?: boolean },
  ): Promise<IdentifierRecord | 'duplicate' | 'missing'>;
  /** True if the identifier existed (for that user, in that project) and is now gone. */
  delete(projectId: string, userId: string, identifierId: string): Promise<boolean>;
  deleteForUser(projectId: string, userId: string): Promise<number>;
  /**
   * The claimed identifier of this type and normalized value in the project (served by the unique
   * index): the only one that counts. Unclaimed holders of the value are never returned.
   */
  findByValue(projectId: string, type: IdentifierType, value: string): Promise<IdentifierRecord | null>;
  /** The unclaimed (asserted, unproven) identifiers of this type and value in the project, at most `limit`. */
  listUnclaimedByValue(projectId: string, type: IdentifierType, value: string, limit: number): Promise<IdentifierRecord[]>;
  /**
   * Removes every unclaimed identifier of this type and value in the project (the holders that
   * only asserted a value somebody has now claimed); the filter is the guard, so an identifier
   * whose value changed or that was claimed meanwhile stays. The number removed.
   */
  deleteUnclaimedByValue(projectId: string, type: IdentifierType, value: string): Promise<number>;
  /** Removes the user's unclaimed identifiers (an abandoned sign-up's assertions); claimed ones stay. The number removed. */
  deleteUnclaimedForUser(projectId: string, userId: string): Promise<number>;
  /** The user's identifiers, oldest first. */
  listForUser(projectId: string, userId: string): Promise<IdentifierRecord[]>;
  list(projectId: string, query: IdentifierListQuery): Promise<IdentifierPage>;
}

export const identifierIndexes: IndexPlan = {
  identifiers: [
    // One claimed identifier value per type per project; inserts and claims rely on it (no
    // check-then-insert race). Unclaimed values stay outside it, so an assertion blocks nobody.
    { key: { projectId: 1, type: 1, value: 1 }, name: 'project_type_claimed_value_unique', unique: true, partialFilterExpression: { claimed: true } },
    // Finds the unclaimed holders of a value (released when someone claims it).
    { key: { projectId: 1, type: 1, value: 1, claimed: 1 }, name: 'project_type_value_claimed' },
    { key: { projectId: 1, userId: 1 }, name: 'project_user' },
    { key: { projectId: 1, createdAt: 1 }, name: 'project_created' },
  ],
};

const DUPLICATE_KEY = 11000;
const INDEX_NOT_FOUND = 27;

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
    async updateStatus(projectId, userId, identifierId, change, now, guard = {}) {
      const filter: Filter<IdentifierRecord> = { _id: identifierId, projectId, userId };
      if (guard.from) filter.status = guard.from;
      if (guard.value !== undefined) filter.value = guard.value;
      try {
        return await coll.findOneAndUpdate(filter, { $set: { ...change, updatedAt: now } }, { returnDocument: 'after' });
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return 'duplicate';
        throw err;
      }
    },
    async updateValue(projectId, userId, identifierId, change, now, guard = {}) {
      const filter: Filter<IdentifierRecord> = { _id: identifierId, projectId, userId };
      if (guard.value !== undefined) filter.value = guard.value;
      if (guard.claimed !== undefined) filter.claimed = guard.claimed;
      try {
        const updated = await coll.findOneAndUpdate(filter, { $set: { ...change, updatedAt: now } }, { returnDocument: 'after' });
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
      return coll.findOne({ projectId, type, value, claimed: true });
    },
    listUnclaimedByValue(projectId, type, value, limit) {
      return coll.find({ projectId, type, value, claimed: false }).sort({ createdAt: 1, _id: 1 }).limit(limit).toArray();
    },
    async deleteUnclaimedByValue(projectId, type, value) {
      const r = await coll.deleteMany({ projectId, type, value, claimed: false });
      return r.deletedCount;
    },
    async deleteUnclaimedForUser(projectId, userId) {
      const r = await coll.deleteMany({ projectId, userId, claimed: false });
      return r.deletedCount;
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

/**
 * Brings identifier documents written before claims existed into the claim model, before the
 * indexes are built: the old index made every value unique, so each document becomes claimed if it
 * is proven (verified or primary) and unclaimed otherwise. An old pending identifier cannot be told
 * apart from a sign-up's unproven assertion, so it loses its power until proven (or until the
 * application sets it again), which is the safe direction. The old all-statuses unique index is
 * dropped: it would refuse a second, unclaimed holder of a value.
 */
export async function prepareIdentifierClaims(db: Db): Promise<void> {
  const coll: Collection<IdentifierRecord> = db.collection('identifiers');
  // Only while the old index is there: once dropped, every document has `claimed` and a start
  // scans nothing.
  const old = await coll.listIndexes().toArray().catch(() => []);
  if (!old.some((index) => index.name === 'project_type_value_unique')) return;
  await coll.updateMany({ claimed: { $exists: false }, status: { $in: ['verified', 'primary'] } }, { $set: { claimed: true } });
  await coll.updateMany({ claimed: { $exists: false } }, { $set: { claimed: false } });
  try {
    await coll.dropIndex('project_type_value_unique');
  } catch (err) {
    // Dropped a moment ago by another replica starting at the same time.
    if (!(err instanceof MongoServerError && err.code === INDEX_NOT_FOUND)) throw err;
  }
}
