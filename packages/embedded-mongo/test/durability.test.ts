/**
 * The store's own durability: journal replay after a restart, snapshots (compaction), repair of a
 * torn journal tail, and the data-directory lock. Internals of the embedded store, so skipped
 * against a real MongoDB.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { Long, MongoClient, MongoServerError, type Db } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { frame } from '../src/journal.js';
import { startEmbeddedMongo, type EmbeddedMongo, type EmbeddedMongoOptions } from '../src/index.js';
import { makeTempDir, removeTempDir, runCli } from './cliProcess.js';

/** Test documents of any shape (the driver's default schema types `_id` as ObjectId). */
 
type Loose = { _id: string | number; [key: string]: any };

const quiet = { log: () => undefined };

/** Journal/snapshot files of the data directory, sorted (the lock file left out). */
function dataFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f !== 'mongod.lock')
    .sort();
}

function newestJournal(dir: string): string {
  const gens = readdirSync(dir)
    .map((f) => /^journal-(\d+)\.log$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  expect(gens.length).toBeGreaterThan(0);
  return join(dir, `journal-${gens[gens.length - 1]}.log`);
}

/** A pid that belonged to a process which has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  const pid = child.pid!;
  await new Promise((resolve) => child.once('exit', resolve));
  return pid;
}

describe.skipIf(!!process.env.MONGODB_URI)('durability of the embedded store', () => {
  let dir: string;
  const running = new Set<EmbeddedMongo>();
  const clients = new Set<MongoClient>();

  beforeEach(async () => {
    dir = join(await makeTempDir(), 'data');
  });
  afterEach(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    clients.clear();
    for (const s of running) await s.stop().catch(() => undefined);
    running.clear();
    await removeTempDir(join(dir, '..'));
  });

  async function start(opts: EmbeddedMongoOptions = {}): Promise<EmbeddedMongo> {
    const store = await startEmbeddedMongo({ port: 0, dataDir: dir, ...quiet, ...opts });
    running.add(store);
    return store;
  }

  async function stop(store: EmbeddedMongo): Promise<void> {
    await store.stop();
    running.delete(store);
  }

  async function connect(store: EmbeddedMongo, options: ConstructorParameters<typeof MongoClient>[1] = {}): Promise<MongoClient> {
    const client = new MongoClient(store.uri, { serverSelectionTimeoutMS: 5000, ...options });
    clients.add(client);
    await client.connect();
    return client;
  }

  /** Starts a server, runs `fn` against database `dur`, then stops client and server. */
  async function session<T>(fn: (db: Db, client: MongoClient) => Promise<T>, opts: EmbeddedMongoOptions = {}): Promise<T> {
    const store = await start(opts);
    const client = await connect(store);
    try {
      return await fn(client.db('dur'), client);
    } finally {
      await client.close();
      clients.delete(client);
      await stop(store);
    }
  }

  /** Everything observable about database `dur`: collections, their indexes and documents. */
  async function dump(db: Db): Promise<Record<string, { indexes: unknown[]; docs: unknown[] }>> {
    const out: Record<string, { indexes: unknown[]; docs: unknown[] }> = {};
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
    for (const name of names) {
      const coll = db.collection(name);
      const indexes = (await coll.listIndexes().toArray()).sort((a, b) => String(a.name).localeCompare(String(b.name)));
      const docs = await coll.find({}, { promoteLongs: false }).sort({ _id: 1 }).toArray();
      out[name] = { indexes, docs };
    }
    return out;
  }

  it('replays inserts, updates, deletes, index changes and drops after a restart', async () => {
    const before = await session(async (db, client) => {
      const items = db.collection<{ _id: number; n: number; tag?: string; gone?: boolean }>('items');
      await items.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, n: i })));
      await items.updateOne({ _id: 3 }, { $set: { tag: 'three' } });
      await items.updateMany({ _id: { $gte: 40 } }, { $inc: { n: 1000 } });
      await items.replaceOne({ _id: 4 }, { n: -4 });
      await items.deleteOne({ _id: 5 });
      await items.deleteMany({ _id: { $gte: 45 } });
      await items.findOneAndUpdate({ _id: 100 }, { $set: { n: 100 } }, { upsert: true });
      await items.findOneAndDelete({ _id: 6 });
      await items.createIndex({ n: 1 }, { name: 'n_1' });
      await items.createIndex({ tag: 1 }, { name: 'tag_1', sparse: true });
      await items.dropIndex('tag_1');

      await db.collection<Loose>('dropped').insertOne({ _id: 'x' });
      await db.collection<Loose>('dropped').drop();
      await db.createCollection('empty');
      await db.collection<Loose>('recreated').insertOne({ _id: 'old' });
      await db.collection<Loose>('recreated').drop();
      await db.collection<Loose>('recreated').insertOne({ _id: 'new' });

      const other = client.db('dur_other');
      await other.collection<Loose>('c').insertOne({ _id: 1 });
      await other.dropDatabase();
      return dump(db);
    });

    expect(Object.keys(before)).toEqual(['empty', 'items', 'recreated']);
    expect(before.items.docs).toHaveLength(50 - 1 /* _id 5 */ - 5 /* 45..49 */ - 1 /* _id 6 */ + 1 /* upsert */);
    expect(before.items.indexes.map((i) => (i as { name: string }).name)).toEqual(['_id_', 'n_1']);

    await session(async (db, client) => {
      expect(await dump(db)).toEqual(before);
      const items = db.collection<Loose>('items');
      expect(await items.findOne({ _id: 3 })).toEqual({ _id: 3, n: 3, tag: 'three' });
      expect(await items.findOne({ _id: 4 })).toEqual({ _id: 4, n: -4 });
      expect(await items.findOne({ _id: 5 })).toBeNull();
      expect(await items.findOne({ _id: 41 })).toEqual({ _id: 41, n: 1041 });
      expect(await items.findOne({ _id: 100 })).toEqual({ _id: 100, n: 100 });
      expect(await db.collection<Loose>('dropped').countDocuments()).toBe(0);
      expect(await db.collection<Loose>('recreated').find().toArray()).toEqual([{ _id: 'new' }]);
      expect(await client.db('dur_other').listCollections().toArray()).toEqual([]);
      // And the restarted store keeps journaling: change something and restart once more.
      await items.updateOne({ _id: 3 }, { $unset: { tag: '' } });
    });

    await session(async (db) => {
      expect(await db.collection<Loose>('items').findOne({ _id: 3 })).toEqual({ _id: 3, n: 3 });
      expect((await dump(db)).items.docs).toHaveLength(before.items.docs.length);
    });
  });

  it('still enforces a unique index after a restart', async () => {
    await session(async (db) => {
      const users = db.collection<Loose>('users');
      await users.createIndex({ email: 1 }, { unique: true });
      await users.insertMany([
        { _id: 1, email: 'a@example.com' },
        { _id: 2, email: 'b@example.com' },
      ]);
    });

    for (const restart of [1, 2]) {
      await session(async (db) => {
        const users = db.collection<Loose>('users');
        const err = await users.insertOne({ _id: 10 + restart, email: 'a@example.com' }).catch((e: unknown) => e);
        expect(err, `restart ${restart}`).toBeInstanceOf(MongoServerError);
        expect((err as MongoServerError).code).toBe(11000);
        const upd = await users.updateOne({ _id: 2 }, { $set: { email: 'a@example.com' } }).catch((e: unknown) => e);
        expect((upd as MongoServerError).code).toBe(11000);
        expect(await users.find().sort({ _id: 1 }).toArray()).toEqual([
          { _id: 1, email: 'a@example.com' },
          { _id: 2, email: 'b@example.com' },
        ]);
        const unique = (await users.listIndexes().toArray()).find((i) => i.name === 'email_1');
        expect(unique).toMatchObject({ key: { email: 1 }, unique: true });
        // The _id index too.
        const dup = await users.insertOne({ _id: 1, email: 'z@example.com' }).catch((e: unknown) => e);
        expect((dup as MongoServerError).code).toBe(11000);
      });
    }
  });

  it('keeps int64 values as int64 across a journal replay and a snapshot', async () => {
    const big = Long.fromString('9007199254740993'); // 2^53 + 1: not representable as a double
    await session(async (db) => {
      await db.collection<Loose>('nums').insertMany([
        { _id: 1, big, small: Long.fromNumber(5), plain: 5 },
        { _id: 2, small: Long.fromNumber(7) },
      ]);
      await db.collection<Loose>('nums').updateOne({ _id: 2 }, { $inc: { small: Long.fromNumber(1) } });
    });

    const check = async (db: Db) => {
      const nums = db.collection<Loose>('nums');
      const docs = await nums.find({}, { promoteLongs: false }).sort({ _id: 1 }).toArray();
      expect(docs[0].big).toBeInstanceOf(Long);
      expect((docs[0].big as Long).toString()).toBe('9007199254740993');
      expect(docs[0].small).toBeInstanceOf(Long);
      expect(docs[0].plain).toBe(5);
      expect(docs[1].small).toBeInstanceOf(Long);
      expect((docs[1].small as Long).toNumber()).toBe(8);
      expect(await nums.countDocuments({ big: { $type: 'long' } })).toBe(1);
      expect(await nums.countDocuments({ _id: { $lte: 2 }, small: { $type: 'long' } })).toBe(2);
      expect(await nums.countDocuments({ plain: { $type: 'int' } })).toBe(1);
      expect(await nums.countDocuments({ big })).toBe(1);
    };

    // Restart 1: journal replay only.
    await session(check);
    // Restart 2 with a tiny compaction threshold: the first write snapshots, and the snapshot is replayed.
    await session(
      async (db) => {
        await db.collection<Loose>('nums').insertOne({ _id: 3, small: Long.fromNumber(1) });
      },
      { compactAfterBytes: 1 },
    );
    expect(dataFiles(dir).some((f) => /^snapshot-\d+\.bson$/.test(f))).toBe(true);
    await session(async (db) => {
      await check(db);
      expect(await db.collection<Loose>('nums').countDocuments({ small: { $type: 'long' } })).toBe(3);
    });
  });

  // cacheBytes 0: every document lives in a spill file, so the snapshots read them from there while writes continue.
  it.each([
    ['documents in memory', {}],
    ['every document spilled', { cacheBytes: 0 }],
  ])('compacts into snapshots while writes continue, and restarts with every document and one generation on disk (%s)', async (_, cache) => {
    const writers = 4;
    const perWriter = 400;
    const pad = 'x'.repeat(200);
    const opts = { compactAfterBytes: 64 * 1024, ...cache };
    await session(async (db) => {
      const coll = db.collection<{ _id: string; w: number; i: number; pad: string; v: number }>('bulk');
      // Concurrent writers, so writes land while snapshots are being written.
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; i < perWriter; i++) {
            await coll.insertOne({ _id: `${w}-${i}`, w, i, pad, v: 0 });
            if (i % 4 === 3) await coll.updateOne({ _id: `${w}-${i - 3}` }, { $inc: { v: 1 } });
          }
        }),
      );
      // Rewrite every document once more (journal grows, data does not).
      await coll.updateMany({}, { $inc: { v: 10 } });
      await coll.deleteMany({ i: { $gte: perWriter - 10 } });
    }, opts);

    const files = dataFiles(dir);
    const snapshot = files.filter((f) => /^snapshot-\d+\.bson$/.test(f));
    const journal = files.filter((f) => /^journal-\d+\.log$/.test(f));
    // One generation: snapshot-G and journal-G, nothing else (no old generation, no .tmp).
    expect(snapshot).toHaveLength(1);
    expect(journal).toHaveLength(1);
    expect(files).toHaveLength(2);
    const gen = Number(/(\d+)/.exec(snapshot[0])![1]);
    expect(journal[0]).toBe(`journal-${gen}.log`);
    // Several snapshots were taken over the run.
    expect(gen).toBeGreaterThanOrEqual(3);

    const check = async (db: Db) => {
      const docs = await db.collection<Loose>('bulk').find().sort({ w: 1, i: 1 }).toArray();
      expect(docs).toHaveLength(writers * (perWriter - 10));
      for (const d of docs) {
        const expectedV = 10 + (d.i % 4 === 0 && d.i + 3 < perWriter ? 1 : 0);
        expect(d).toEqual({ _id: `${d.w}-${d.i}`, w: d.w, i: d.i, pad, v: expectedV });
      }
    };
    await session(check, opts);
    const after = dataFiles(dir);
    expect(after).toHaveLength(2);
    expect(after.filter((f) => /^snapshot-\d+\.bson$/.test(f))).toHaveLength(1);
    // And once more with the default threshold.
    await session(check, cache);
  });

  // The snapshot is written through one 4 MiB buffer: records land across its edges, and a
  // document larger than the buffer is written on its own.
  it.each([
    ['documents in memory', {}],
    ['small documents spilled', { cacheBytes: 0 }],
  ])('writes a snapshot larger than its write buffer, and restarts with every document (%s)', async (_, cache) => {
    const docs: Loose[] = [];
    for (let i = 0; i < 400; i++) docs.push({ _id: i, data: randomBytes(5000 + (i % 7) * 1000).toString('hex') });
    docs.push({ _id: 'big', data: randomBytes(2.5 * 1024 * 1024).toString('hex') }); // 5 MiB of text
    await session(async (db) => {
      const coll = db.collection<Loose>('snap');
      for (let i = 0; i < docs.length; i += 50) await coll.insertMany(docs.slice(i, i + 50));
    }, cache);
    // The first write of this session starts a snapshot of everything.
    await session(async (db) => {
      await db.collection<Loose>('snap').insertOne({ _id: 'after', data: 'x' });
    }, { compactAfterBytes: 1, ...cache });
    const snapshot = dataFiles(dir).find((f) => /^snapshot-\d+\.bson$/.test(f));
    expect(snapshot).toBeDefined();
    expect(statSync(join(dir, snapshot!)).size).toBeGreaterThan(2 * 4 * 1024 * 1024);
    await session(async (db) => {
      const stored = await db.collection<Loose>('snap').find().toArray();
      const byId = new Map(stored.map((d) => [String(d._id), d]));
      expect(stored).toHaveLength(docs.length + 1);
      for (const d of docs) expect(byId.get(String(d._id))).toEqual(d);
      expect(byId.get('after')).toEqual({ _id: 'after', data: 'x' });
    }, cache);
  });

  describe('torn journal tail', () => {
    async function writeSome(): Promise<void> {
      await session(async (db) => {
        const coll = db.collection<Loose>('t');
        for (let i = 0; i < 20; i++) await coll.insertOne({ _id: i, v: `value-${i}` });
        await coll.updateOne({ _id: 0 }, { $set: { v: 'updated' } });
        await coll.deleteOne({ _id: 19 });
      });
    }

    const expected = [{ _id: 0, v: 'updated' }, ...Array.from({ length: 18 }, (_, k) => ({ _id: k + 1, v: `value-${k + 1}` }))];

    const tails: [string, () => Buffer][] = [
      ['random garbage', () => randomBytes(1000)],
      ['a few bytes (shorter than a frame header)', () => Buffer.from([1, 2, 3])],
      ['half of a frame', () => {
        const f = frame({ op: 'put', db: 'dur', coll: 't', doc: { _id: 'torn', v: 'x'.repeat(100) } });
        return f.subarray(0, Math.floor(f.length / 2));
      }],
      ['a whole frame with a wrong checksum', () => {
        const f = Buffer.from(frame({ op: 'put', db: 'dur', coll: 't', doc: { _id: 'torn' } }));
        f.writeUInt32LE((f.readUInt32LE(4) ^ 0xdeadbeef) >>> 0, 4);
        return f;
      }],
      ['a header claiming a huge frame', () => {
        const h = Buffer.alloc(8);
        h.writeUInt32LE(0xfffffff0, 0);
        return h;
      }],
    ];

    it.each(tails)('starts after %s is appended, with every complete write, and keeps later writes', async (_name, tail) => {
      await writeSome();
      const path = newestJournal(dir);
      const goodSize = statSync(path).size;
      appendFileSync(path, tail());

      await session(async (db) => {
        expect(await db.collection<Loose>('t').find().sort({ _id: 1 }).toArray()).toEqual(expected);
        await db.collection<Loose>('t').insertOne({ _id: 'after', v: 'restart' });
      });
      // The damaged tail was cut off, so the write made after the repair is not stuck behind it.
      expect(statSync(path).size).toBeGreaterThan(goodSize);
      await session(async (db) => {
        expect(await db.collection<Loose>('t').find().sort({ _id: 1 }).toArray()).toEqual([...expected, { _id: 'after', v: 'restart' }]);
      });
    });
  });

  describe('data directory lock', () => {
    it('refuses a second server on the same data directory while the first runs', async () => {
      const first = await start();
      const client = await connect(first);
      await client.db('dur').collection<Loose>('c').insertOne({ _id: 1 });

      await expect(startEmbeddedMongo({ port: 0, dataDir: dir, ...quiet })).rejects.toThrow(/in use/);
      // ... from another process as well.
      const cli = await runCli(['--port', '0', '--data-dir', dir]);
      expect(cli.code).not.toBe(0);
      expect(cli.stderr).toMatch(/in use/);

      // The refusals changed nothing: the first server still holds the lock and works.
      expect(readFileSync(join(dir, 'mongod.lock'), 'utf8').trim()).toBe(String(process.pid));
      await client.db('dur').collection<Loose>('c').insertOne({ _id: 2 });
      expect(await client.db('dur').collection<Loose>('c').countDocuments()).toBe(2);

      await client.close();
      await stop(first);
      expect(existsSync(join(dir, 'mongod.lock'))).toBe(false);
      // Once it stopped, the directory can be opened again, with both writes.
      await session(async (db) => expect(await db.collection<Loose>('c').countDocuments()).toBe(2));
    });

    it('takes over a stale lock left by a process that no longer runs', async () => {
      await session(async (db) => {
        await db.collection<Loose>('c').insertOne({ _id: 1 });
      });
      const pid = await deadPid();
      writeFileSync(join(dir, 'mongod.lock'), String(pid));

      const store = await start();
      expect(readFileSync(join(dir, 'mongod.lock'), 'utf8').trim()).toBe(String(process.pid));
      const client = await connect(store);
      expect(await client.db('dur').collection<Loose>('c').find().toArray()).toEqual([{ _id: 1 }]);
      await client.close();
      await stop(store);
      expect(existsSync(join(dir, 'mongod.lock'))).toBe(false);
    });

    it('takes over an unreadable lock file', async () => {
      await session(async (db) => void (await db.collection<Loose>('c').insertOne({ _id: 1 })));
      writeFileSync(join(dir, 'mongod.lock'), 'not a pid\n');
      await session(async (db) => expect(await db.collection<Loose>('c').countDocuments()).toBe(1));
    });

    it('releases the data directory when the port is taken, so a retry works', async () => {
      const blocker: Server = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const port = (blocker.address() as { port: number }).port;
      try {
        await expect(startEmbeddedMongo({ port, dataDir: dir, ...quiet })).rejects.toThrow(/EADDRINUSE/);
      } finally {
        await new Promise<void>((resolve) => blocker.close(() => resolve()));
      }
      expect(existsSync(join(dir, 'mongod.lock'))).toBe(false);
      await session(async (db) => {
        await db.collection<Loose>('c').insertOne({ _id: 'retry' });
        expect(await db.collection<Loose>('c').countDocuments()).toBe(1);
      });
    });
  });
});
