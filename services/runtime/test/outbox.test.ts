/** A producer's outbox and relay against the store: nothing recorded is lost when publishing fails. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/kit/openTestDatabase.js';
import { createLogger } from '../logger.js';
import { outboxIndexes, startOutboxRelay, type OutboxRecord } from '../outbox.js';

const COLLECTION = 'test_outbox';
let db: TestDatabase;
const logger = createLogger('outbox-test', 'silent');

beforeAll(async () => {
  db = await openTestDatabase('outbox_test', outboxIndexes(COLLECTION));
});
afterAll(() => db.close());

const until = async (predicate: () => boolean | Promise<boolean>) => {
  const end = Date.now() + 5000;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('outbox relay', () => {
  it('publishes each recorded event, marks it sent, and keeps it while publishing fails', async () => {
    const published: OutboxRecord[][] = [];
    let failing = true;
    const relay = startOutboxRelay(db.store.db, COLLECTION, {
      publish: async (batch) => {
        if (failing) throw new Error('events service unavailable');
        published.push(batch);
      },
      logger,
      now: () => new Date(),
      intervalMs: 50,
    });
    try {
      await relay.record({ projectId: 'pro-1', type: 'user.created', data: { userID: 'usr-1' } });
      const stored = await db.store.db.collection<OutboxRecord>(COLLECTION).findOne({ 'data.userID': 'usr-1' });
      expect(stored).toMatchObject({ _id: expect.stringMatching(/^evt-\d+$/), projectId: 'pro-1', type: 'user.created', ip: '' });
      await new Promise((r) => setTimeout(r, 200));
      // Failed publishes leave the event unsent and unleased, ready for the next run.
      expect(await db.store.db.collection<OutboxRecord>(COLLECTION).findOne({ _id: stored!._id })).not.toHaveProperty('sentAt');
      failing = false;
      await until(() => published.length > 0);
      expect(published.flat().map((e) => e._id)).toEqual([stored!._id]);
      await until(async () => Boolean((await db.store.db.collection<OutboxRecord>(COLLECTION).findOne({ _id: stored!._id }))?.sentAt));
      // Once sent it is not published again.
      await new Promise((r) => setTimeout(r, 200));
      expect(published.flat()).toHaveLength(1);
    } finally {
      await relay.stop();
    }
  });

});
