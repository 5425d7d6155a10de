/**
 * Server-side cursors: batching through getMore, batch sizes, single-batch finds, and killing
 * cursors early. Commands are observed with the driver's command monitoring.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Long, MongoClient, MongoServerError, type CommandSucceededEvent, type Db, type Document } from 'mongodb';
import { openTarget, failure, type Loose, type Target } from './harness.js';

let target: Target;
/** A second client on the same server, with command monitoring on. */
let monitored: MongoClient;
let db: Db;
let events: CommandSucceededEvent[] = [];

beforeAll(async () => {
  target = await openTarget();
  monitored = new MongoClient(target.uri, { monitorCommands: true, serverSelectionTimeoutMS: 5000 });
  await monitored.connect();
  monitored.on('commandSucceeded', (e) => events.push(e));
  db = monitored.db(target.db.databaseName);
});
afterAll(async () => {
  await monitored?.close();
  await target?.close();
});

let seq = 0;
async function seeded(name: string, n: number) {
  const c = db.collection<Loose>(`${name}_${++seq}`);
  const docs: Document[] = Array.from({ length: n }, (_, i) => ({ _id: i, pad: 'x'.repeat(20) }));
  if (n) await c.insertMany(docs);
  events = [];
  return c;
}

/** Replies of the monitored commands of that name, in order. */
function succeeded(name: string): { reply: Document }[] {
  return events.filter((e) => e.commandName === name).map((e) => ({ reply: e.reply as Document }));
}

describe('batches', () => {
  it('iterates 1000 documents in batches of 7', async () => {
    const c = await seeded('batches7', 1000);
    const docs = await c.find({}, { batchSize: 7 }).sort({ _id: 1 }).toArray();
    expect(docs.map((d) => d._id)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    const find = succeeded('find');
    expect(find).toHaveLength(1);
    expect(find[0].reply.cursor.firstBatch).toHaveLength(7);
    const getMores = succeeded('getMore');
    expect(getMores).toHaveLength(142);
    const sizes = getMores.map((e) => e.reply.cursor.nextBatch.length as number);
    expect(sizes.slice(0, -1).every((n) => n === 7)).toBe(true);
    expect(sizes[sizes.length - 1]).toBe(6);
    // The cursor stays open until the last batch, which reports id 0.
    expect(Long.fromValue(getMores[0].reply.cursor.id).isZero()).toBe(false);
    expect(Long.fromValue(getMores[getMores.length - 1].reply.cursor.id).isZero()).toBe(true);
    expect(succeeded('killCursors')).toHaveLength(0);
  });

  it('returns a first batch of 101 by default and the rest in one getMore', async () => {
    const c = await seeded('default_batch', 1000);
    const docs = await c.find().toArray();
    expect(docs).toHaveLength(1000);
    expect(succeeded('find')[0].reply.cursor.firstBatch).toHaveLength(101);
    const getMores = succeeded('getMore');
    expect(getMores).toHaveLength(1);
    expect(getMores[0].reply.cursor.nextBatch).toHaveLength(899);
  });

  it('a result that fits the first batch closes the cursor at once', async () => {
    const c = await seeded('one_batch', 5);
    expect(await c.find().toArray()).toHaveLength(5);
    expect(Long.fromValue(succeeded('find')[0].reply.cursor.id).isZero()).toBe(true);
    expect(succeeded('getMore')).toHaveLength(0);
  });

  it('a limit closes the cursor once reached, whatever the batch size', async () => {
    const c = await seeded('limit_close', 100);
    const docs = await c.find().sort({ _id: 1 }).limit(10).batchSize(3).toArray();
    expect(docs.map((d) => d._id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const batches = [succeeded('find')[0].reply.cursor.firstBatch.length, ...succeeded('getMore').map((e) => e.reply.cursor.nextBatch.length)];
    expect(batches.reduce((a, b) => a + b, 0)).toBe(10);
    expect(succeeded('killCursors')).toHaveLength(0);
  });

  it('aggregate results are batched too', async () => {
    const c = await seeded('agg_batches', 50);
    const docs = await c.aggregate([{ $match: { _id: { $gte: 9 } } }, { $sort: { _id: -1 } }], { batchSize: 4 }).toArray();
    expect(docs.map((d) => d._id)).toEqual(Array.from({ length: 41 }, (_, i) => 49 - i));
    expect(succeeded('aggregate')[0].reply.cursor.firstBatch).toHaveLength(4);
    // 37 more: nine full batches of 4, then the last one.
    expect(succeeded('getMore').map((e) => e.reply.cursor.nextBatch.length)).toEqual([4, 4, 4, 4, 4, 4, 4, 4, 4, 1]);
  });
});

describe('single batch', () => {
  it('singleBatch returns one batch and no open cursor', async () => {
    const c = await seeded('single_batch', 20);
    const reply = await db.command({ find: c.collectionName, sort: { _id: 1 }, batchSize: 3, singleBatch: true });
    expect(reply.cursor.firstBatch.map((d: Document) => d._id)).toEqual([0, 1, 2]);
    expect(Long.fromValue(reply.cursor.id).isZero()).toBe(true);
    const viaDriver = await c.find({}, { singleBatch: true, batchSize: 5 }).toArray();
    expect(viaDriver).toHaveLength(5);
    expect(succeeded('getMore')).toHaveLength(0);
  });

  it('a negative limit returns at most that many documents in one batch', async () => {
    const c = await seeded('negative_limit', 20);
    const docs = await c.find().sort({ _id: -1 }).limit(-4).toArray();
    expect(docs.map((d) => d._id)).toEqual([19, 18, 17, 16]);
    const find = succeeded('find')[0];
    expect(Long.fromValue(find.reply.cursor.id).isZero()).toBe(true);
    expect(succeeded('getMore')).toHaveLength(0);
  });
});

describe('killing cursors', () => {
  it('closing a cursor early kills it on the server, and getMore then fails with CursorNotFound (43)', async () => {
    const c = await seeded('kill', 100);
    const cursor = c.find({}, { batchSize: 2 });
    expect(await cursor.next()).toMatchObject({ _id: expect.any(Number) });
    const id = cursor.id;
    expect(id).toBeDefined();
    expect(id!.isZero()).toBe(false);
    await cursor.close();
    const kill = succeeded('killCursors');
    expect(kill).toHaveLength(1);
    expect(kill[0].reply.cursorsKilled.map((x: unknown) => Long.fromValue(x as Long).toString())).toEqual([id!.toString()]);
    const err = await failure(target.db.command({ getMore: id!, collection: c.collectionName }));
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(43);
    expect(err.codeName).toBe('CursorNotFound');
  });

  it('killCursors reports killed and unknown cursor ids', async () => {
    const c = await seeded('kill_cmd', 50);
    const first = await target.db.command({ find: c.collectionName, batchSize: 5 });
    // Replies promote int64 values that fit in a double to numbers; getMore needs an int64.
    const id = Long.fromValue(first.cursor.id);
    expect(id.isZero()).toBe(false);
    const reply = await target.db.command({ killCursors: c.collectionName, cursors: [id] });
    expect(reply.ok).toBe(1);
    expect(reply.cursorsKilled.map(String)).toEqual([id.toString()]);
    expect(reply.cursorsNotFound).toEqual([]);
    const again = await target.db.command({ killCursors: c.collectionName, cursors: [id] });
    expect(again.cursorsKilled).toEqual([]);
    expect(again.cursorsNotFound.map(String)).toEqual([id.toString()]);
  });

  it('getMore on an exhausted cursor fails with CursorNotFound (43)', async () => {
    const c = await seeded('exhausted', 10);
    const first = await target.db.command({ find: c.collectionName, batchSize: 4 });
    const id = Long.fromValue(first.cursor.id);
    const rest = await target.db.command({ getMore: id, collection: c.collectionName });
    expect(rest.cursor.nextBatch).toHaveLength(6);
    expect(Long.fromValue(rest.cursor.id).isZero()).toBe(true);
    expect((await failure(target.db.command({ getMore: id, collection: c.collectionName }))).code).toBe(43);
  });

  it('a write between batches neither skips nor repeats documents', async () => {
    const c = await seeded('interleave', 30);
    const cursor = c.find({}, { batchSize: 10 }).sort({ _id: 1 });
    const got: unknown[] = [];
    for await (const d of cursor) {
      got.push(d._id);
      if (got.length === 5) await c.insertOne({ _id: 1000 } as Document);
    }
    // A cursor's results are fixed by the query; here the new document sorts last and may or may
    // not be seen, but nothing before it is skipped or repeated.
    expect(got.slice(0, 30)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(got.length === 30 || (got.length === 31 && got[30] === 1000)).toBe(true);
  });
});
