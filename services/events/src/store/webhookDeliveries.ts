/** The webhook_deliveries collection (events service): one document per event and endpoint. */
import type { Collection, Db, Filter } from 'mongodb';
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
  /** Leases the pending delivery due first (nextAttemptAt ≤ now, lease expired) to `owner`. */
  claimDue(now: Date, owner: string, leaseUntil: Date): Promise<DeliveryRecord | null>;
  /** Records an attempt under the lease (filter: owner and attempts unchanged); false when the lease was lost. */
  recordAttempt(
    record: Pick<DeliveryRecord, '_id' | 'projectId' | 'attempts'>,
    owner: string,
    attempt: DeliveryAttempt,
    outcome: { status: DeliveryStatus; nextAttemptAt?: Date; finishedAt?: Date },
  ): Promise<boolean>;
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
      // An upsert per delivery with $setOnInsert: an existing one (the event published before) is left as it is.
      const result = await coll.bulkWrite(
        records.map((r) => ({ updateOne: { filter: { _id: r._id, projectId: r.projectId }, update: { $setOnInsert: r }, upsert: true } })),
        { ordered: false },
      );
      return result.upsertedCount;
    },
    claimDue(now, owner, leaseUntil) {
      return coll.findOneAndUpdate(
        { status: 'pending', nextAttemptAt: { $lte: now }, $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lt: now } }] },
        { $set: { leaseOwner: owner, leaseUntil } },
        { sort: { nextAttemptAt: 1 }, returnDocument: 'after' },
      );
    },
    async recordAttempt(record, owner, attempt, outcome) {
      const result = await coll.updateOne(
        { _id: record._id, projectId: record.projectId, status: 'pending', leaseOwner: owner, attempts: record.attempts },
        {
          $set: { status: outcome.status, ...(outcome.nextAttemptAt ? { nextAttemptAt: outcome.nextAttemptAt } : {}), ...(outcome.finishedAt ? { finishedAt: outcome.finishedAt } : {}) },
          $inc: { attempts: 1 },
          $unset: { leaseOwner: '', leaseUntil: '' },
          $push: { log: { $each: [attempt], $slice: -LOG_LENGTH } },
        },
      );
      return result.modifiedCount === 1;
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
