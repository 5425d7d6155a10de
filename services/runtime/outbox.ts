/**
 * A producer's event outbox (connect: `connect_outbox`, ceremony: `ceremony_outbox`, challenge:
 * `challenge_outbox`) and its relay to the events service. The producer writes the event into its
 * own collection around the change (prepared before, ready after) and only then answers the change
 * as done; the relay hands unsent events to the events service (`PublishEvents`,
 * idempotent by event ID) and marks them sent. Leases make two replicas' relays take different
 * events; an event whose relay died with it is taken again once its lease ends (at least once).
 *
 * `record` is the one-write form for events whose change is the producer's own completion of a
 * ceremony (a login verified or refused, a clone detected, a challenge locked): written `ready`
 * after the change and before the answer. An answered change still always has its event; a
 * process killed between the change and `record` leaves a change nobody was answered about (a
 * login the client never learnt had succeeded, and so never used) without its event. That is
 * accepted on the hot path: there is no acknowledged change to report, and `around` would cost a
 * second write per login.
 * See docs/architecture.md, "Webhooks and the events service".
 */
import type { Collection, Db } from 'mongodb';
import type { Logger } from 'pino';
import { newId } from './ids.js';
import type { IndexPlan } from './mongo.js';
import type { SubscriptionCheck } from './subscribedTypesCache.js';

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
  /**
   * `prepared`: written before its change, which may not have happened (yet); `ready`: the change
   * is done, the relay may publish it; `sent`: the events service has it.
   */
  state: 'prepared' | 'ready' | 'sent';
  projectId: string;
  type: string;
  occurredAt: Date;
  data: Record<string, unknown>;
  ip: string;
  os: string;
  browser: string;
  leaseUntil?: Date;
  /** The claim that holds the lease (one token per claim, see claimBatch). */
  leaseOwner?: string;
  /** Set once the events service has it; the TTL index removes the entry a week later. */
  sentAt?: Date;
}

export interface EventOutbox {
  /**
   * Makes the event of a change durable around the change: the entry is written `prepared` before
   * `change` runs and turned `ready` after it succeeded, so a process killed at any point leaves
   * either no change or an entry the relay resolves (see confirm). If `change` throws, the entry is
   * removed and the error rethrown; if the entry cannot be written, the change is not made. Answers
   * what `change` answered. Writes nothing when no endpoint of the project subscribes to the type
   * (the relay's `subscriptions`), unless that answer ran out during the change.
   */
  around<T>(event: OutboxEvent, change: () => Promise<T>): Promise<T>;
  /**
   * Records the event of a change already made, in one write, directly `ready` (see the module
   * comment for when that is enough). Call it after the change and before answering; when it
   * throws, the change must not be answered as done.
   */
  record(event: OutboxEvent): Promise<void>;
}

/**
 * Whether the change of a `prepared` entry happened (the producer looks at its own data, e.g. the
 * user exists). Asked by the relay of entries left prepared for a minute (their writer died
 * between the change and marking the entry ready): true publishes the event, false drops it.
 */
export type ChangeConfirmer = (event: OutboxRecord) => Promise<boolean>;

/** What the relay reports to the metrics (metrics.ts, outboxRelayObserver). */
export interface OutboxObserver {
  /** Events the events service has stored (a batch marked sent). */
  published(count: number): void;
  /** An event not written: no endpoint of the project subscribes to its type. */
  skipped(): void;
  /** A relay run failed; its events stay in the outbox and are retried. */
  relayFailed(): void;
}

/** Hands a batch to the events service; resolves once every event of it is stored there. */
export type EventPublisher = (events: OutboxRecord[]) => Promise<void>;

const SENT_RETENTION_SECONDS = 7 * 86400;
const BATCH = 100;
const LEASE_MS = 30_000;
/** A prepared entry older than this is resolved with the confirmer: its writer is gone. */
const PREPARED_GRACE_MS = 60_000;

export function outboxIndexes(collection: string): IndexPlan {
  // The relay's lookup (sentAt unset) and the removal of sent entries use this one index.
  return {
    [collection]: [
      // The relay's two look-ups: the oldest ready entries, and prepared ones older than a minute.
      { key: { state: 1, occurredAt: 1 }, name: 'state_time' },
      { key: { sentAt: 1 }, name: 'sent_ttl', expireAfterSeconds: SENT_RETENTION_SECONDS },
    ],
  };
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
export function startOutboxRelay(
  db: Db,
  collection: string,
  opts: {
    publish: EventPublisher;
    confirm: ChangeConfirmer;
    logger: Logger;
    now: () => Date;
    intervalMs: number;
    subscriptions?: SubscriptionCheck;
    /** OUTBOX_RELAY_HOLD_MS, a test setting (0 otherwise): ready entries are published only once this old. */
    holdMs?: number;
    observer?: OutboxObserver;
  },
): OutboxRelay {
  const coll: Collection<OutboxRecord> = db.collection(collection);
  /**
   * Null: write the event. Else no endpoint of the project subscribes to its type, and the answer
   * says whether that still holds (subscribedTypesCache.ts); every way of recording checks this first.
   */
  const unsubscribed = (event: OutboxEvent) => (opts.subscriptions ? opts.subscriptions(event.projectId, event.type) : Promise.resolve(null));
  const entryOf = (event: OutboxEvent, state: 'prepared' | 'ready'): OutboxRecord => ({
    _id: newId('evt'),
    state,
    projectId: event.projectId,
    type: event.type,
    occurredAt: opts.now(),
    data: event.data,
    ip: event.client?.ip ?? '',
    os: event.client?.os ?? '',
    browser: event.client?.browser ?? '',
  });
  let stopping = false;
  let running: Promise<void> | null = null;
  let again = false;

  let claims = 0;
  /** This relay's name in leaseOwner: every claim writes its own token (see claimBatch). */
  const relayId = newId('rly');
  /**
   * Leases up to BATCH ready entries in three commands whatever the batch size: the IDs of the
   * oldest ready unleased entries (state_time index), one updateMany that leases those still free
   * to a token used by this claim only, and a read of the entries carrying that token. The lease
   * condition is in the updateMany's filter and each document's update is atomic, so of two relays
   * racing for an entry only one token lands on it, and each reads back only its own.
   */
  const claimBatch = async (): Promise<OutboxRecord[]> => {
    const now = opts.now();
    const leaseFree = { $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lt: now } }] };
    const ready = { state: 'ready' as const, ...(opts.holdMs ? { occurredAt: { $lt: new Date(now.getTime() - opts.holdMs) } } : {}) };
    const candidates = await coll.find({ ...ready, ...leaseFree }, { projection: { _id: 1 } }).sort({ occurredAt: 1 }).limit(BATCH).toArray();
    if (candidates.length === 0) return [];
    const ids = candidates.map((c) => c._id);
    const token = `${relayId}.${++claims}`;
    const leased = await coll.updateMany({ _id: { $in: ids }, state: 'ready', ...leaseFree }, { $set: { leaseUntil: new Date(now.getTime() + LEASE_MS), leaseOwner: token } });
    if (leased.modifiedCount === 0) return [];
    return coll.find({ _id: { $in: ids }, leaseOwner: token }).sort({ occurredAt: 1 }).toArray();
  };

  /** Entries whose writer died between change and `ready`: published if the change happened, else dropped. */
  const resolveAbandoned = async () => {
    const cutoff = new Date(opts.now().getTime() - PREPARED_GRACE_MS);
    const abandoned = await coll.find({ state: 'prepared', occurredAt: { $lt: cutoff } }).limit(BATCH).toArray();
    for (const entry of abandoned) {
      if (await opts.confirm(entry)) await coll.updateOne({ _id: entry._id, state: 'prepared' }, { $set: { state: 'ready' } });
      else await coll.deleteOne({ _id: entry._id, state: 'prepared' });
    }
  };

  const relayOnce = async (withAbandoned: boolean) => {
    if (withAbandoned) await resolveAbandoned();
    for (;;) {
      const batch = await claimBatch();
      if (batch.length === 0) return;
      try {
        await opts.publish(batch);
      } catch (err) {
        // Give the batch back at once (the next run takes it again) rather than after its lease.
        await coll.updateMany({ _id: { $in: batch.map((e) => e._id) }, state: 'ready' }, { $unset: { leaseUntil: '', leaseOwner: '' } }).catch(() => undefined);
        throw err;
      }
      await coll.updateMany({ _id: { $in: batch.map((e) => e._id) }, state: 'ready' }, { $set: { state: 'sent', sentAt: opts.now() }, $unset: { leaseUntil: '', leaseOwner: '' } });
      opts.observer?.published(batch.length);
      if (stopping || batch.length < BATCH) return;
    }
  };

  /** Abandoned entries are looked for on the timer only, not after every change. */
  const kick = (withAbandoned = false) => {
    if (stopping) return;
    if (running) {
      again = true;
      return;
    }
    running = relayOnce(withAbandoned)
      .catch((err: unknown) => {
        opts.observer?.relayFailed();
        opts.logger.warn({ err: (err as Error).message }, 'event relay failed; the events stay in the outbox and are retried');
      })
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          kick();
        }
      });
  };
  const timer = setInterval(() => kick(true), opts.intervalMs);
  timer.unref();
  kick(true);

  return {
    async around(event, change) {
      const skip = await unsubscribed(event);
      if (skip) {
        const result = await change();
        // The "nobody subscribes" answer ran out while the change ran: an endpoint's create may
        // have been answered meanwhile, so the event is written, done already, before this change
        // is answered (if this write fails the change is not answered as done).
        if (!skip()) {
          await coll.insertOne(entryOf(event, 'ready'));
          kick();
        } else opts.observer?.skipped();
        return result;
      }
      const entry = entryOf(event, 'prepared');
      const { _id } = entry;
      await coll.insertOne(entry);
      let result: Awaited<ReturnType<typeof change>>;
      try {
        result = await change();
      } catch (err) {
        // The change was not made: its event must not be sent. If this removal fails too, the
        // relay drops the entry once it is a minute old (the confirmer finds no change).
        await coll.deleteOne({ _id, state: 'prepared' }).catch(() => undefined);
        throw err;
      }
      // Throws when the store does: the change is then not answered as done, and the relay
      // publishes the entry once it is a minute old (the confirmer finds the change).
      await coll.updateOne({ _id, state: 'prepared' }, { $set: { state: 'ready' } });
      kick();
      return result;
    },
    async record(event) {
      if ((await unsubscribed(event))?.()) return opts.observer?.skipped();
      await coll.insertOne(entryOf(event, 'ready'));
      kick();
    },
    async stop() {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}
