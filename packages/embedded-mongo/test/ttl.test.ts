/**
 * TTL indexes on the embedded store, with a short sweep interval (mongod sweeps every 60 s, so
 * these are skipped against a real MongoDB).
 */
import { join } from 'node:path';
import { MongoClient, type Collection } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmbeddedMongo, type EmbeddedMongo } from '../src/index.js';
import { makeTempDir, removeTempDir, waitFor } from './cliProcess.js';

interface Doc {
  _id: string;
  at?: unknown;
}

const SWEEP_MS = 200;

describe.skipIf(!!process.env.MONGODB_URI)('TTL indexes', () => {
  const stores: EmbeddedMongo[] = [];
  const clients: MongoClient[] = [];
  let dir: string | undefined;

  beforeEach(() => {
    dir = undefined;
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    for (const s of stores.splice(0)) await s.stop();
    await removeTempDir(dir);
  });

  async function start(opts: { dataDir?: string; ttlIntervalMs: number }): Promise<Collection<Doc>> {
    const store = await startEmbeddedMongo({ port: 0, log: () => undefined, ...opts });
    stores.push(store);
    const client = new MongoClient(store.uri, { serverSelectionTimeoutMS: 5000 });
    clients.push(client);
    await client.connect();
    return client.db('ttl').collection<Doc>('sessions');
  }

  async function ids(coll: Collection<Doc>): Promise<string[]> {
    return (await coll.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id).sort();
  }

  it('removes expired documents and keeps fresh ones and those without a date', async () => {
    const coll = await start({ ttlIntervalMs: SWEEP_MS });
    await coll.createIndex({ at: 1 }, { expireAfterSeconds: 1 });
    const now = Date.now();
    const hour = 3600_000;
    await coll.insertMany([
      { _id: 'old', at: new Date(now - 10_000) },
      { _id: 'old-in-array', at: [new Date(now + hour), new Date(now - 10_000)] },
      // Expires 2 s from now: a margin over the sweep interval, so the first sweep cannot take it.
      { _id: 'soon', at: new Date(now + 1000) },
      { _id: 'fresh', at: new Date(now + hour) },
      { _id: 'fresh-in-array', at: [new Date(now + hour)] },
      { _id: 'no-date' },
      { _id: 'null-date', at: null },
      { _id: 'string-date', at: new Date(now - 10_000).toISOString() },
      { _id: 'number-date', at: now - 10_000 },
    ]);

    const survivors = ['fresh', 'fresh-in-array', 'no-date', 'null-date', 'number-date', 'string-date'];
    await waitFor(async () => !(await ids(coll)).includes('old'), 'the expired document to be removed', 10_000, 50);
    // The same sweep removed the other expired one, and nothing that has not expired.
    expect(await ids(coll)).toEqual([...survivors, 'soon'].sort());

    // `soon` expires one second after its date; later sweeps still leave the others alone.
    await waitFor(async () => !(await ids(coll)).includes('soon'), 'the document that expires after 1 s', 10_000, 50);
    expect(await ids(coll)).toEqual(survivors.sort());
  });

  it('makes TTL deletions durable and keeps sweeping after a restart', async () => {
    dir = await makeTempDir();
    const dataDir = join(dir, 'data');
    let coll = await start({ dataDir, ttlIntervalMs: SWEEP_MS });
    await coll.createIndex({ at: 1 }, { expireAfterSeconds: 1 });
    await coll.insertMany([
      { _id: 'old', at: new Date(Date.now() - 60_000) },
      { _id: 'fresh', at: new Date(Date.now() + 3600_000) },
    ]);
    await waitFor(async () => (await ids(coll)).length === 1, 'the sweep', 10_000, 50);
    await clients.pop()!.close();
    await stores.pop()!.stop();

    // No sweep runs in this one (an hour apart): what it shows came from the journal.
    coll = await start({ dataDir, ttlIntervalMs: 3600_000 });
    expect(await ids(coll)).toEqual(['fresh']);
    await clients.pop()!.close();
    await stores.pop()!.stop();

    // The TTL index itself survived, and the next server sweeps with it.
    coll = await start({ dataDir, ttlIntervalMs: SWEEP_MS });
    const ttlIndex = (await coll.listIndexes().toArray()).find((i) => i.name === 'at_1');
    expect(ttlIndex).toMatchObject({ key: { at: 1 }, expireAfterSeconds: 1 });
    await coll.insertOne({ _id: 'old-2', at: new Date(Date.now() - 60_000) });
    await waitFor(async () => !(await ids(coll)).includes('old-2'), 'the sweep after the restart', 10_000, 50);
    expect(await ids(coll)).toEqual(['fresh']);
  });
});
