/**
 * Races between clients: a guarded findOneAndUpdate has one winner, a unique index admits one of
 * many identical inserts, and every connection gets its replies in the order it sent requests.
 * Runs against the embedded store, or a real MongoDB when MONGODB_URI is set.
 */
import { MongoClient, MongoServerError, type Collection, type ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTarget, type Target } from './harness.js';
import { hostPort, opMsg, RawConnection } from './rawWire.js';

describe('concurrency', () => {
  let target: Target;

  beforeAll(async () => {
    target = await openTarget();
  });
  afterAll(async () => {
    await target?.close();
  });

  it('lets exactly one of 25 clients win a guarded findOneAndUpdate', async () => {
    const jobs = target.db.collection<{ _id: number; status: string; by?: number }>('jobs');
    const JOBS = 10;
    await jobs.insertMany(Array.from({ length: JOBS }, (_, i) => ({ _id: i, status: 'pending' })));

    const clients = Array.from({ length: 25 }, () => new MongoClient(target.uri, { serverSelectionTimeoutMS: 5000 }));
    try {
      await Promise.all(clients.map((c) => c.connect()));
      // Every client claims every job at once.
      const results = await Promise.all(
        clients.flatMap((c, by) =>
          Array.from({ length: JOBS }, async (_, job) => {
            const coll = c.db(target.db.databaseName).collection<{ _id: number; status: string; by?: number }>('jobs');
            const before = await coll.findOneAndUpdate({ _id: job, status: 'pending' }, { $set: { status: 'done', by } });
            return { job, by, before };
          }),
        ),
      );
      for (let job = 0; job < JOBS; job++) {
        const winners = results.filter((r) => r.job === job && r.before !== null);
        expect(winners, `job ${job}`).toHaveLength(1);
        expect(winners[0].before).toEqual({ _id: job, status: 'pending' });
        expect(await jobs.findOne({ _id: job })).toEqual({ _id: job, status: 'done', by: winners[0].by });
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  describe('a unique index under a pool of 50 connections', () => {
    let pooled: MongoClient;
    let coll: Collection<{ _id?: string | ObjectId; key: string; i?: number; n?: number }>;

    beforeAll(async () => {
      pooled = new MongoClient(target.uri, { serverSelectionTimeoutMS: 5000, maxPoolSize: 50, minPoolSize: 50 });
      await pooled.connect();
      coll = pooled.db(target.db.databaseName).collection('uniq');
      await coll.createIndex({ key: 1 }, { unique: true });
    });
    afterAll(async () => {
      await pooled?.close();
    });

    it('admits exactly one of 50 concurrent inserts of the same key; the rest fail with 11000', async () => {
      const outcomes = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => coll.insertOne({ key: 'same', i })));
      const ok = outcomes.filter((o) => o.status === 'fulfilled');
      const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(ok).toHaveLength(1);
      expect(failed).toHaveLength(49);
      for (const f of failed) {
        expect(f.reason).toBeInstanceOf(MongoServerError);
        expect((f.reason as MongoServerError).code).toBe(11000);
      }
      const stored = await coll.find({ key: 'same' }).toArray();
      expect(stored).toHaveLength(1);
      const winner = outcomes.findIndex((o) => o.status === 'fulfilled');
      expect(stored[0].i).toBe(winner);
    });

    it('lets exactly one of 50 concurrent updates take a key', async () => {
      await coll.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: `u${i}`, key: `own-${i}` })));
      const outcomes = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => coll.updateOne({ _id: `u${i}` }, { $set: { key: 'taken' } })));
      const ok = outcomes.filter((o) => o.status === 'fulfilled');
      expect(ok).toHaveLength(1);
      expect((ok[0] as PromiseFulfilledResult<{ modifiedCount: number }>).value.modifiedCount).toBe(1);
      for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as MongoServerError).code).toBe(11000);
      expect(await coll.countDocuments({ key: 'taken' })).toBe(1);
      // The losers kept their own keys.
      expect(await coll.countDocuments({ key: /^own-/ })).toBe(49);
    });

    it('loses no increment when 50 connections $inc the same document', async () => {
      await coll.insertOne({ _id: 'counter', key: 'counter', n: 0 });
      await Promise.all(Array.from({ length: 50 }, () => coll.updateOne({ _id: 'counter' }, { $inc: { n: 1 } })));
      expect((await coll.findOne({ _id: 'counter' }))?.n).toBe(50);
    });
  });

  it('answers each of 20 concurrent clients in the order it sent its requests', async () => {
    const CLIENTS = 20;
    const STEPS = 25;
    const clients = Array.from({ length: CLIENTS }, () => new MongoClient(target.uri, { serverSelectionTimeoutMS: 5000, maxPoolSize: 1 }));
    try {
      await Promise.all(clients.map((c) => c.connect()));
      await Promise.all(
        clients.map(async (client, c) => {
          const coll = client.db(target.db.databaseName).collection<{ _id: string; owner: number; step: number }>('ordered');
          const log = client.db(target.db.databaseName).collection<{ _id: number; steps: number[] }>('ordered_log');
          for (let step = 0; step < STEPS; step++) {
            await coll.insertOne({ _id: `${c}-${step}`, owner: c, step });
            // Each reply reflects exactly this client's writes so far.
            expect(await coll.countDocuments({ owner: c })).toBe(step + 1);
            const after = await log.findOneAndUpdate({ _id: c }, { $push: { steps: step } }, { upsert: true, returnDocument: 'after' });
            expect(after?.steps).toEqual(Array.from({ length: step + 1 }, (_, k) => k));
          }
        }),
      );
      const logs = await target.db.collection<{ _id: number; steps: number[] }>('ordered_log').find().sort({ _id: 1 }).toArray();
      expect(logs).toHaveLength(CLIENTS);
      for (const l of logs) expect(l.steps).toEqual(Array.from({ length: STEPS }, (_, k) => k));
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  // Raw sockets cannot authenticate; against a real MongoDB this needs an open, single-host URI.
  it.skipIf(!hostPort(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1'))(
    'answers pipelined requests on 20 raw connections in order',
    async () => {
      const { host, port } = hostPort(target.uri)!;
      const CONNS = 20;
      const PIPELINED = 40;
      const dbName = target.db.databaseName;
      const conns = await Promise.all(Array.from({ length: CONNS }, () => RawConnection.open(host, port)));
      try {
        await Promise.all(
          conns.map(async (conn, c) => {
            // All requests in one write, without waiting for any reply.
            const msgs = Array.from({ length: PIPELINED }, (_, k) =>
              opMsg(1000 + k, {
                findAndModify: 'pipelined',
                query: { _id: c },
                update: { $push: { seq: k } },
                upsert: true,
                new: true,
                $db: dbName,
              }),
            );
            await conn.write(Buffer.concat(msgs));
            for (let k = 0; k < PIPELINED; k++) {
              const reply = await conn.next();
              expect(reply.responseTo).toBe(1000 + k);
              expect(reply.doc.ok).toBe(1);
              expect(reply.doc.value.seq).toEqual(Array.from({ length: k + 1 }, (_, j) => j));
            }
          }),
        );
      } finally {
        for (const conn of conns) conn.destroy();
      }
    },
  );
});
