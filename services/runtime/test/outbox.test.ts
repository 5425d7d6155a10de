/**
 * A producer's outbox and relay against the store: an event is written around its change, nothing
 * recorded is lost when publishing fails, and an entry whose writer died mid-change is resolved.
 */
import type { Db } from 'mongodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/kit/openTestDatabase.js';
import { createLogger } from '../logger.js';
import { createMetrics, outboxRelayObserver } from '../metrics.js';
import { outboxIndexes, startOutboxRelay, type OutboxRecord } from '../outbox.js';

const COLLECTION = 'test_outbox';
let db: TestDatabase;
const logger = createLogger('outbox-test', 'silent');
let clock = Date.now();
const now = () => new Date(clock);
const coll = () => db.store.db.collection<OutboxRecord>(COLLECTION);

beforeAll(async () => {
  db = await openTestDatabase('outbox_test', outboxIndexes(COLLECTION));
});
afterAll(() => db.close());
beforeEach(async () => {
  await coll().deleteMany({});
  clock = Date.now();
});

const until = async (predicate: () => boolean | Promise<boolean>) => {
  const end = Date.now() + 5000;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('outbox relay', () => {
  it('publishes an event written around its change, marks it sent, and keeps it while publishing fails', async () => {
    const published: OutboxRecord[][] = [];
    let failing = true;
    const relay = startOutboxRelay(db.store.db, COLLECTION, {
      publish: async (batch) => {
        if (failing) throw new Error('events service unavailable');
        published.push(batch);
      },
      confirm: async () => true,
      logger,
      now,
      intervalMs: 50,
    });
    try {
      let stateDuringChange: string | undefined;
      const answer = await relay.around({ projectId: 'pro-1', type: 'user.created', data: { userID: 'usr-1' } }, async () => {
        stateDuringChange = (await coll().findOne({ 'data.userID': 'usr-1' }))?.state;
        return 'changed';
      });
      expect(answer).toBe('changed');
      // Durable before the change was made, publishable only after it.
      expect(stateDuringChange).toBe('prepared');
      const stored = await coll().findOne({ 'data.userID': 'usr-1' });
      expect(stored).toMatchObject({ _id: expect.stringMatching(/^evt-\d+$/), state: 'ready', projectId: 'pro-1', type: 'user.created', ip: '' });
      await pause(200);
      expect(await coll().findOne({ _id: stored!._id })).not.toHaveProperty('sentAt');
      failing = false;
      await until(() => published.length > 0);
      expect(published.flat().map((e) => e._id)).toEqual([stored!._id]);
      await until(async () => Boolean((await coll().findOne({ _id: stored!._id }))?.sentAt));
      await pause(200);
      expect(published.flat()).toHaveLength(1);
    } finally {
      await relay.stop();
    }
  });

  it('leases a batch to one relay only: two relays racing over the same entries never publish one twice', async () => {
    const entries = Array.from({ length: 350 }, (_, i) => ({ _id: `evt-race-${i}`, state: 'ready' as const, projectId: 'pro-1', type: 'user.created', occurredAt: new Date(clock - 1000 + i), data: {}, ip: '', os: '', browser: '' }));
    await coll().insertMany(entries);
    const published = new Map<string, string[]>();
    const relay = (name: string) =>
      startOutboxRelay(db.store.db, COLLECTION, {
        publish: async (batch) => {
          await pause(5);
          for (const e of batch) published.set(e._id, [...(published.get(e._id) ?? []), name]);
        },
        confirm: async () => true,
        logger,
        now,
        intervalMs: 20,
      });
    const relays = [relay('a'), relay('b'), relay('c')];
    try {
      await until(async () => (await coll().countDocuments({ state: 'sent' })) === entries.length);
      expect(published.size).toBe(entries.length);
      expect([...published.values()].filter((by) => by.length > 1)).toEqual([]);
      // More than one relay took part, so the test raced them.
      expect(new Set([...published.values()].flat()).size).toBeGreaterThan(1);
      expect(await coll().countDocuments({ leaseOwner: { $exists: true } })).toBe(0);
    } finally {
      await Promise.all(relays.map((r) => r.stop()));
    }
  });

  it('writes nothing publishable for a change that failed, and makes no change when the entry cannot be written', async () => {
    const published: OutboxRecord[] = [];
    const relay = startOutboxRelay(db.store.db, COLLECTION, { publish: async (b) => void published.push(...b), confirm: async () => true, logger, now, intervalMs: 50 });
    try {
      await expect(relay.around({ projectId: 'pro-1', type: 'user.created', data: { userID: 'usr-2' } }, async () => Promise.reject(new Error('duplicate')))).rejects.toThrow('duplicate');
      expect(await coll().countDocuments({ 'data.userID': 'usr-2' })).toBe(0);
      await pause(150);
      expect(published).toEqual([]);
    } finally {
      await relay.stop();
    }
    let changed = false;
    const closed = await openTestDatabase('outbox_closed', outboxIndexes(COLLECTION));
    const dead = startOutboxRelay(closed.store.db, COLLECTION, { publish: async () => undefined, confirm: async () => true, logger, now, intervalMs: 1000 });
    await dead.stop();
    await closed.close();
    await expect(dead.around({ projectId: 'pro-1', type: 'user.created', data: {} }, async () => void (changed = true))).rejects.toThrow();
    expect(changed).toBe(false);
  });

  it('records the event of a change already made in one write, ready at once, and publishes it', async () => {
    const published: OutboxRecord[] = [];
    // The relay's collection, with the producer's writes counted (the relay's own come after the answer).
    const writes: string[] = [];
    const counted = new Proxy(coll(), {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (prop === 'insertOne' || prop === 'updateOne') writes.push(String(prop));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const countingDb = { collection: () => counted } as unknown as Db;
    const relay = startOutboxRelay(countingDb, COLLECTION, { publish: async (b) => void published.push(...b), confirm: async () => false, logger, now, intervalMs: 60_000 });
    try {
      await relay.record({ projectId: 'pro-1', type: 'passkey-login.completed', data: { userID: 'usr-3' }, client: { ip: '192.0.2.1', os: 'macOS', browser: 'Chrome' } });
      expect(writes).toEqual(['insertOne']);
      const stored = await coll().findOne({ 'data.userID': 'usr-3' });
      expect(stored).toMatchObject({ _id: expect.stringMatching(/^evt-\d+$/), projectId: 'pro-1', type: 'passkey-login.completed', ip: '192.0.2.1', os: 'macOS', browser: 'Chrome' });
      expect(['ready', 'sent']).toContain(stored!.state);
      // Published by the kick of the write itself, not by the (minute-long) timer; never left prepared.
      await until(() => published.some((e) => e._id === stored!._id));
      expect(published.find((e) => e._id === stored!._id)).toMatchObject({ state: 'ready' });
    } finally {
      await relay.stop();
    }
    const closed = await openTestDatabase('outbox_closed_record', outboxIndexes(COLLECTION));
    const dead = startOutboxRelay(closed.store.db, COLLECTION, { publish: async () => undefined, confirm: async () => true, logger, now, intervalMs: 1000 });
    await dead.stop();
    await closed.close();
    // The caller learns that the event is not durable, so it does not answer the change as done.
    await expect(dead.record({ projectId: 'pro-1', type: 'passkey-login.completed', data: {} })).rejects.toThrow();
  });

  it('resolves entries left prepared by a writer that died: published if the change happened, dropped if not, after a minute', async () => {
    const published: OutboxRecord[] = [];
    const entry = (id: string, userID: string): OutboxRecord => ({ _id: id, state: 'prepared', projectId: 'pro-1', type: 'user.created', occurredAt: now(), data: { userID }, ip: '', os: '', browser: '' });
    await coll().insertMany([entry('evt-1', 'usr-made'), entry('evt-2', 'usr-never')]);
    const relay = startOutboxRelay(db.store.db, COLLECTION, {
      publish: async (b) => void published.push(...b),
      confirm: async (e) => e.data.userID === 'usr-made',
      logger,
      now,
      intervalMs: 30,
    });
    try {
      // Within the minute the writer may still be making the change: neither published nor dropped.
      await pause(200);
      expect(published).toEqual([]);
      expect(await coll().countDocuments({ state: 'prepared' })).toBe(2);
      clock += 61_000;
      await until(() => published.length === 1);
      expect(published[0]).toMatchObject({ _id: 'evt-1', state: 'ready' });
      await until(async () => (await coll().countDocuments({ _id: 'evt-2' })) === 0);
      await pause(100);
      expect(published.map((e) => e._id)).toEqual(['evt-1']);
    } finally {
      await relay.stop();
    }
  });

  it('counts published events, failed relay runs and events skipped as unsubscribed in its metrics', async () => {
    const metrics = createMetrics('connect');
    let failing = true;
    const relay = startOutboxRelay(db.store.db, COLLECTION, {
      publish: async () => {
        if (failing) throw new Error('events service unavailable');
      },
      confirm: async () => true,
      logger,
      now,
      intervalMs: 30,
      // user.deleted: no endpoint subscribes (an answer that still holds); the rest is written.
      subscriptions: async (_projectId, type) => (type === 'user.deleted' ? () => true : null),
      observer: outboxRelayObserver(metrics),
    });
    const value = async (name: string) => (await metrics.registry.getSingleMetric(name)!.get()).values[0]?.value ?? 0;
    try {
      // Present at 0 before anything happened.
      expect(await value('outbox_events_published_total')).toBe(0);
      await relay.around({ projectId: 'pro-1', type: 'user.created', data: { userID: 'usr-m1' } }, async () => undefined);
      await relay.record({ projectId: 'pro-1', type: 'user.created', data: { userID: 'usr-m2' } });
      await relay.record({ projectId: 'pro-1', type: 'user.deleted', data: { userID: 'usr-m1' } });
      await relay.around({ projectId: 'pro-1', type: 'user.deleted', data: { userID: 'usr-m2' } }, async () => undefined);
      expect(await value('outbox_events_skipped_total')).toBe(2);
      await until(async () => (await value('outbox_relay_failures_total')) >= 1);
      expect(await value('outbox_events_published_total')).toBe(0);
      failing = false;
      await until(async () => (await value('outbox_events_published_total')) === 2);
      await pause(100);
      expect(await value('outbox_events_published_total')).toBe(2);
      expect(await coll().countDocuments({ state: 'sent' })).toBe(2);
    } finally {
      await relay.stop();
    }
  });
});
