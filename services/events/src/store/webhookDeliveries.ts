/** The webhook_deliveries collection (events service): one document per event and endpoint. */
import { MongoBulkWriteError, type Collection, type Db, type Filter } from 'mongodb';
import type { IndexPlan } from '../../../runtime/mongo.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryAttempt {
  at: Date;
  /** HTTP status, 0 when no answer came. */
  status: number;
  durationMs: number;
  error?: string;
}

export interface DeliveryRecord {
  /** `<eventId>:<endpointId>`: publishing an event twice finds the same delivery. */
  _id: string;
  projectId: string;
  endpointId: string;
  eventId: string;
  type: string;
  /** The JSON body, fixed when the event was published (re-signed per attempt). */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  leaseOwner?: string;
  leaseUntil?: Date;
  /** The last attempts (bounded), newest last. */
  log: DeliveryAttempt[];
  createdAt: Date;
  finishedAt?: Date;
}

/** One attempt's result as the worker records it. */
export interface AttemptOutcome {
  record: Pick<DeliveryRecord, '_id' | 'projectId' | 'attempts'>;
  attempt: DeliveryAttempt;
  outcome: { status: DeliveryStatus; nextAttemptAt?: Date; finishedAt?: Date };
}

/** The storage-neutral query of an endpoint's delivery log (parsed in domain/listWebhookDeliveries.ts). */
export interface DeliveryListQuery {
  status?: DeliveryStatus;
  type?: string;
  eventId?: string;
  /** By creation time (then ID). */
  direction: 'asc' | 'desc';
  page: number;
  pageSize: number;
}

export interface DeliveryStore {
  /** Inserts each delivery unless one with its ID exists; answers how many were new. */
  insertNew(records: DeliveryRecord[]): Promise<number>;
  /**
   * Leases up to `limit` pending deliveries due first (nextAttemptAt ≤ now, lease expired) to
   * `owner`, which must be unique to this claim (it is the lease's holder in recordAttempts).
   */
  claimDue(now: Date, owner: string, leaseUntil: Date, limit: number): Promise<DeliveryRecord[]>;
  /**
   * Records attempts, each under its lease (filter: owner, still pending, attempts unchanged), in
   * one command; answers how many were written (an attempt whose lease was lost writes nothing).
   */
  recordAttempts(outcomes: AttemptOutcome[], owner: string): Promise<number>;
  /** One page of an endpoint's deliveries and how many match. */
  listForEndpoint(projectId: string, endpointId: string, query: DeliveryListQuery): Promise<{ items: DeliveryRecord[]; total: number }>;
  /** Fails the pending deliveries of a deleted endpoint. */
  failForEndpoint(projectId: string, endpointId: string, now: Date): Promise<number>;
}


/** The delivery log keeps the last attempts only, so a document stays small however often it fails. */
const LOG_LENGTH = 10;
/** Finished deliveries (delivered or failed) are kept this long, then removed by the TTL index. */
const RETENTION_SECONDS = 14 * 86400;

export function mongoDeliveryStore(db: Db): DeliveryStore {
  const coll: Collection<DeliveryRecord> = db.collection('webhook_deliveries');
  return {
    async insertNew(records) {
      // One unordered insert: a delivery that exists already (the event published before) fails
      // alone with a duplicate key and is left as it is; any other error is the store's and thrown.
      try {
        return (await coll.insertMany(records, { ordered: false })).insertedCount;
      } catch (err) {
        if (!(err instanceof MongoBulkWriteError)) throw err;
        const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
        if (errors.some((e) => e.code !== 11000)) throw err;
        return err.insertedCount;
      }
    },
    async claimDue(now, owner, leaseUntil, limit) {
      // Three commands for a whole batch: the IDs due first (status_due index), one updateMany that
      // leases those still free (the condition is in its filter, each document's update is atomic:
      // of two claims racing for a delivery one owner lands on it), and a read of what this owner got.
      const free = { status: 'pending' as const, nextAttemptAt: { $lte: now }, $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lt: now } }] };
      const due = await coll.find(free, { projection: { _id: 1 } }).sort({ nextAttemptAt: 1 }).limit(limit).toArray();
      if (due.length === 0) return [];
      const ids = due.map((d) => d._id);
      const leased = await coll.updateMany({ _id: { $in: ids }, ...free }, { $set: { leaseOwner: owner, leaseUntil } });
      if (leased.modifiedCount === 0) return [];
      return coll.find({ _id: { $in: ids }, leaseOwner: owner, status: 'pending' }).sort({ nextAttemptAt: 1 }).toArray();
    },
    async recordAttempts(outcomes, owner) {
      if (outcomes.length === 0) return 0;
      const result = await coll.bulkWrite(
        outcomes.map(({ record, attempt, outcome }) => ({
          updateOne: {
            filter: { _id: record._id, projectId: record.projectId, status: 'pending' as const, leaseOwner: owner, attempts: record.attempts },
            update: {
              $set: { status: outcome.status, ...(outcome.nextAttemptAt ? { nextAttemptAt: outcome.nextAttemptAt } : {}), ...(outcome.finishedAt ? { finishedAt: outcome.finishedAt } : {}) },
              $inc: { attempts: 1 },
              $unset: { leaseOwner: '' as const, leaseUntil: '' as const },
              $push: { log: { $each: [attempt], $slice: -LOG_LENGTH } },
            },
          },
        })),
        { ordered: false },
      );
      return result.modifiedCount;
    },
    async listForEndpoint(projectId, endpointId, query) {
      // An event ID names one delivery of this endpoint: its _id (a point look-up).
      const filter: Filter<DeliveryRecord> = { projectId, endpointId };
      if (query.eventId !== undefined) filter._id = `${query.eventId}:${endpointId}`;
      if (query.status) filter.status = query.status;
      if (query.type !== undefined) filter.type = query.type;
      const order = query.direction === 'asc' ? 1 : -1;
      const [items, total] = await Promise.all([
        coll.find(filter).sort({ createdAt: order, _id: order }).skip((query.page - 1) * query.pageSize).limit(query.pageSize).toArray(),
        coll.countDocuments(filter),
      ]);
      return { items, total };
    },
    async failForEndpoint(projectId, endpointId, now) {
      const result = await coll.updateMany({ projectId, endpointId, status: 'pending' }, { $set: { status: 'failed', finishedAt: now }, $unset: { leaseOwner: '', leaseUntil: '' } });
      return result.modifiedCount;
    },
  };
}

export const deliveryIndexes: IndexPlan = {
  webhook_deliveries: [
    // The worker's claim: pending deliveries by due time.
    { key: { status: 1, nextAttemptAt: 1 }, name: 'status_due' },
    // An endpoint's log (GET …/deliveries) in creation order, unfiltered, by status (also: a deleted
    // endpoint's pending deliveries) or by event type. A filter on both uses one and checks the other
    // on an endpoint's deliveries only, which the TTL bounds to 14 days.
    { key: { projectId: 1, endpointId: 1, createdAt: 1, _id: 1 }, name: 'project_endpoint_created' },
    { key: { projectId: 1, endpointId: 1, status: 1, createdAt: 1, _id: 1 }, name: 'project_endpoint_status_created' },
    { key: { projectId: 1, endpointId: 1, type: 1, createdAt: 1, _id: 1 }, name: 'project_endpoint_type_created' },
    { key: { finishedAt: 1 }, name: 'finished_ttl', expireAfterSeconds: RETENTION_SECONDS },
  ],
};
