/**
 * timeStoreOperations names each timed operation after the command the driver sends: checked
 * against the driver's own command monitoring, on a client that has it on for this test only.
 */
import { randomBytes } from 'node:crypto';
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedMongo, type EmbeddedMongo } from '@passkeyauth/embedded-mongo';
import { timeStoreOperations } from '../timeStoreOperations.js';

let embedded: EmbeddedMongo;
let client: MongoClient;
const sent: string[] = [];
beforeAll(async () => {
  embedded = await startEmbeddedMongo({ port: 0 });
  client = new MongoClient(embedded.uri, { monitorCommands: true });
  client.on('commandStarted', (e: CommandStartedEvent) => sent.push(e.commandName));
  await client.connect();
});
afterAll(async () => {
  await client?.close();
  await embedded?.stop();
});

interface Thing {
  _id: string;
  name: string;
  n?: number;
}

function timedDb() {
  const timed: { operation: string; seconds: number }[] = [];
  const db = timeStoreOperations(client.db(`timed_${randomBytes(4).toString('hex')}`), (operation, seconds) => timed.push({ operation, seconds }));
  return { db, timed, names: () => timed.map((t) => t.operation) };
}

describe('timeStoreOperations', () => {
  it('times each method under the command the driver sends for it', async () => {
    const { db, names, timed } = timedDb();
    const things = db.collection<Thing>('things');
    sent.length = 0;
    await things.createIndexes([{ key: { name: 1 }, name: 'name_1', unique: true }]);
    await things.insertOne({ _id: 'a', name: 'x' });
    await things.insertMany([
      { _id: 'b', name: 'y' },
      { _id: 'c', name: 'z' },
    ]);
    await things.findOne({ _id: 'a' });
    expect(await things.find({ name: { $gte: 'x' } }).sort({ name: 1 }).limit(2).toArray()).toHaveLength(2);
    await things.findOneAndUpdate({ _id: 'a' }, { $set: { n: 1 } });
    await things.findOneAndDelete({ _id: 'c' });
    await things.updateOne({ _id: 'b' }, { $set: { n: 2 } });
    await things.replaceOne({ _id: 'b' }, { name: 'y', n: 3 });
    expect(await things.countDocuments({ n: { $gte: 1 } })).toBe(2);
    await things.aggregate([{ $match: { n: 1 } }]).toArray();
    await things.deleteOne({ _id: 'b' });
    await things.deleteMany({});
    await db.command({ ping: 1 });

    expect(names()).toEqual(sent.filter((c) => c !== 'endSessions'));
    expect(names()).toEqual(['createIndexes', 'insert', 'insert', 'find', 'find', 'findAndModify', 'findAndModify', 'update', 'update', 'aggregate', 'aggregate', 'delete', 'delete', 'ping']);
    for (const t of timed) expect(t.seconds).toBeGreaterThanOrEqual(0);
  });

  it('times failed operations too', async () => {
    const { db, names } = timedDb();
    const things = db.collection<Thing>('things');
    await things.createIndex({ name: 1 }, { unique: true });
    await things.insertOne({ _id: 'a', name: 'x' });
    await expect(things.insertOne({ _id: 'b', name: 'x' })).rejects.toThrow(/duplicate/i);
    await expect(db.command({ noSuchCommand: 1 })).rejects.toThrow();
    expect(names()).toEqual(['createIndexes', 'insert', 'insert', 'noSuchCommand']);
  });

  it('times a cursor once, when it is read; building it sends nothing', async () => {
    const { db, names } = timedDb();
    const things = db.collection<Thing>('things');
    const cursor = things.find({}).sort({ _id: 1 });
    expect(names()).toEqual([]);
    expect(await cursor.toArray()).toEqual([]);
    expect(names()).toEqual(['find']);
    await things.find({}).explain();
    expect(names()).toEqual(['find', 'explain']);
  });

  it('leaves everything else of the collection and the database as it is', async () => {
    const { db, names } = timedDb();
    const things = db.collection<Thing>('things');
    expect(things.collectionName).toBe('things');
    expect(things.namespace).toBe(`${db.databaseName}.things`);
    // A method that is not timed still works, on the collection itself.
    const bulk = things.initializeOrderedBulkOp();
    bulk.insert({ _id: 'x', name: 'bulk' });
    await bulk.execute();
    expect(await things.findOne({ _id: 'x' })).toMatchObject({ name: 'bulk' });
    // The same wrapper each time: callers may keep a method reference.
    expect(things.findOne).toBe(things.findOne);
    expect(names()).toEqual(['find']);
  });
});
