/**
 * A producer's event outbox (connect: `connect_outbox`, ceremony: `ceremony_outbox`) and its relay
 * to the events service. The producer records an event in its own collection before it answers
 * the change as done; the relay hands unsent events to the events service (`PublishEvents`,
 * idempotent by event ID) and marks them sent. Leases make two replicas' relays take different
 * events; an event whose relay died with it is taken again once its lease ends (at least once).
 * See docs/architecture.md, "Webhooks and the events service".
 */
import type { Collection, Db } from 'mongodb';
import type { Logger } from 'pino';
import { newId } from './ids.js';
import type { IndexPlan } from './mongo.js';

/** An event as its producer records it. `data` carries the IDs the backend API uses. */
export interface OutboxEvent {
  projectId: string;
  type: string;
  data: Record<string, unknown>;
  /** The client of the change, when it came from one (the payload's metadata). */
  client?: { ip: string; os: string; browser: string };
}

export interface OutboxRecord {
  _id: string;
  projectId: string;
  type: string;
  occurredAt: Date;
  data: Record<string, unknown>;
  ip: string;
  os: string;
  browser: string;
  leaseUntil?: Date;
  /** Set once the events service has it; the TTL index removes the entry a week later. */
  sentAt?: Date;
}

export interface EventOutbox {
  /** Makes the event durable (throws when the store does: the change must then not be answered as done). */
  record(event: OutboxEvent): Promise<void>;
}

/** Hands a batch to the events service; resolves once every event of it is stored there. */
export type EventPublisher = (events: OutboxRecord[]) => Promise<void>;

const SENT_RETENTION_SECONDS = 7 * 86400;
const BATCH = 100;
const LEASE_MS = 30_000;

export function outboxIndexes(collection: string): IndexPlan {
  // The relay's lookup (sentAt unset) and the removal of sent entries use this one index.
  return { [collection]: [{ key: { sentAt: 1 }, name: 'sent_ttl', expireAfterSeconds: SENT_RETENTION_SECONDS }] };
}

export interface OutboxRelay extends EventOutbox {
  /** Stops relaying after the batch under way. */
  stop(): Promise<void>;
}

/**
 * The outbox of `collection` and its relay, which runs on every recorded event (after the
 * answer: nobody waits for it) and every `intervalMs` (for events recorded by another replica or
 * left by a relay that failed).
 */
export function startOutboxRelay(db: Db, collection: string, opts: { publish: EventPublisher; logger: Logger; now: () => Date; intervalMs: number }): OutboxRelay {
  const coll: Collection<OutboxRecord> = db.collection(collection);
  let stopping = false;
  let running: Promise<void> | null = null;
  let again = false;

  const claimBatch = async (): Promise<OutboxRecord[]> => {
    const batch: OutboxRecord[] = [];
    while (batch.length < BATCH) {
      const now = opts.now();
      const claimed = await coll.findOneAndUpdate(
        { sentAt: { $exists: false }, $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lt: now } }] },
        { $set: { leaseUntil: new Date(now.getTime() + LEASE_MS) } },
        { sort: { occurredAt: 1 }, returnDocument: 'after' },
      );
      if (!claimed) break;
      batch.push(claimed);
    }
    return batch;
  };

  const relayOnce = async () => {
    for (;;) {
      const batch = await claimBatch();
      if (batch.length === 0) return;
      try {
        await opts.publish(batch);
      } catch (err) {
        // Give the batch back at once (the next run takes it again) rather than after its lease.
        await coll.updateMany({ _id: { $in: batch.map((e) => e._id) }, sentAt: { $exists: false } }, { $unset: { leaseUntil: '' } }).catch(() => undefined);
        throw err;
      }
      await coll.updateMany({ _id: { $in: batch.map((e) => e._id) }, sentAt: { $exists: false } }, { $set: { sentAt: opts.now() }, $unset: { leaseUntil: '' } });
      if (stopping || batch.length < BATCH) return;
    }
  };

  const kick = () => {
    if (stopping) return;
    if (running) {
      again = true;
      return;
    }
    running = relayOnce()
      .catch((err: unknown) => opts.logger.warn({ err: (err as Error).message }, 'event relay failed; the events stay in the outbox and are retried'))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          kick();
        }
      });
  };
  const timer = setInterval(kick, opts.intervalMs);
  timer.unref();
  kick();

  return {
    async record(event) {
      await coll.insertOne({
        _id: newId('evt'),
        projectId: event.projectId,
        type: event.type,
        occurredAt: opts.now(),
        data: event.data,
        ip: event.client?.ip ?? '',
        os: event.client?.os ?? '',
        browser: event.client?.browser ?? '',
      });
      kick();
    },
    async stop() {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}
