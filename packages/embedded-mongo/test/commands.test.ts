/**
 * Database and server commands (collections, databases, handshake, diagnostics), and the
 * features a standalone mongod refuses (transactions, change streams), through the official driver.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoServerError, type Document } from 'mongodb';
import { openTarget, failure, type Target } from './harness.js';

let target: Target;
beforeAll(async () => {
  target = await openTarget();
});
afterAll(async () => {
  await target?.close();
});

let seq = 0;
function name(base: string): string {
  return `${base}_${++seq}`;
}

/**
 * The server's code behind an error. The driver rewraps code 20 "Transaction numbers are only
 * allowed on a replica set member or mongos" (what a standalone mongod answers) into an error
 * advising retryWrites=false, keeping the server's error as `originalError`.
 */
function serverCode(err: MongoServerError): { code: unknown; codeName: unknown } {
  expect(err).toBeInstanceOf(MongoServerError);
  const original = (err as MongoServerError & { originalError?: MongoServerError }).originalError;
  const source = err.code === undefined && original ? original : err;
  expect(source).toBeInstanceOf(MongoServerError);
  expect(source.errmsg ?? source.message).toMatch(/Transaction numbers are only allowed on a replica set member or mongos/);
  return { code: source.code, codeName: source.codeName };
}

describe('collections', () => {
  it('listCollections lists collections created by writes and by create, filtered by name', async () => {
    const a = name('lc_a');
    const b = name('lc_b');
    await target.db.collection(a).insertOne({ x: 1 });
    await target.db.createCollection(b);
    const all = (await target.db.listCollections().toArray()).map((c) => c.name);
    expect(all).toEqual(expect.arrayContaining([a, b]));
    const one: Document[] = await target.db.listCollections({ name: b }).toArray();
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({ name: b, type: 'collection', options: {}, info: { readOnly: false } });
    expect(one[0].idIndex).toMatchObject({ key: { _id: 1 }, name: '_id_' });
    const names = await target.db.listCollections({ name: a }, { nameOnly: true }).toArray();
    expect(names).toEqual([{ name: a, type: 'collection' }]);
    expect(await target.db.listCollections({ name: 'does_not_exist' }).toArray()).toEqual([]);
  });

  it('create makes an empty collection that exists before any write', async () => {
    const n = name('create');
    const c = await target.db.createCollection(n);
    expect(c.collectionName).toBe(n);
    expect(await c.countDocuments()).toBe(0);
    expect((await c.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
  });

  it('creating an existing collection fails with NamespaceExists (48)', async () => {
    const n = name('create_twice');
    await target.db.createCollection(n);
    const err = await failure(target.db.createCollection(n));
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(48);
    expect(err.codeName).toBe('NamespaceExists');
    const implicit = name('create_after_insert');
    await target.db.collection(implicit).insertOne({});
    expect((await failure(target.db.createCollection(implicit))).code).toBe(48);
  });

  it('drop removes the collection with its documents and indexes', async () => {
    const n = name('drop');
    const c = target.db.collection(n);
    await c.insertMany([{ a: 1 }, { a: 2 }]);
    await c.createIndex({ a: 1 });
    expect(await c.drop()).toBe(true);
    expect(await target.db.listCollections({ name: n }).toArray()).toEqual([]);
    expect(await c.countDocuments()).toBe(0);
    await c.insertOne({ a: 3 });
    expect((await c.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
    expect(await c.find({}, { projection: { _id: 0 } }).toArray()).toEqual([{ a: 3 }]);
  });

  it('dropDatabase removes every collection of that database only', async () => {
    const other = target.client.db(`t_${randomBytes(4).toString('hex')}_drop`);
    await other.collection('one').insertOne({ a: 1 });
    await other.collection('two').insertOne({ b: 1 });
    const keep = name('kept');
    await target.db.collection(keep).insertOne({ k: 1 });
    expect(await other.dropDatabase()).toBe(true);
    expect(await other.listCollections().toArray()).toEqual([]);
    expect(await other.collection('one').countDocuments()).toBe(0);
    expect(await target.db.collection(keep).countDocuments()).toBe(1);
  });
});

describe('server commands', () => {
  it('ping answers ok', async () => {
    expect(await target.db.command({ ping: 1 })).toMatchObject({ ok: 1 });
    expect(await target.client.db('admin').command({ ping: 1 })).toMatchObject({ ok: 1 });
  });

  it('buildInfo reports a MongoDB 7 version', async () => {
    const info = await target.db.admin().buildInfo();
    expect(info.ok).toBe(1);
    expect(info.version).toMatch(/^7\.\d+\.\d+/);
    expect(info.versionArray[0]).toBe(7);
    expect(info.maxBsonObjectSize).toBe(16 * 1024 * 1024);
  });

  it('hello describes a writable standalone', async () => {
    const hello = await target.db.admin().command({ hello: 1 });
    expect(hello.ok).toBe(1);
    expect(hello.isWritablePrimary).toBe(true);
    expect(hello.maxWireVersion).toBeGreaterThanOrEqual(21);
    expect(hello.minWireVersion).toBe(0);
    expect(hello.maxBsonObjectSize).toBe(16 * 1024 * 1024);
    expect(hello.maxMessageSizeBytes).toBe(48_000_000);
    expect(hello.maxWriteBatchSize).toBe(100_000);
    expect(hello.localTime).toBeInstanceOf(Date);
    expect(Math.abs((hello.localTime as Date).getTime() - Date.now())).toBeLessThan(60_000);
    expect(hello.logicalSessionTimeoutMinutes).toBe(30);
    expect(typeof hello.connectionId).toBe('number');
    expect(hello.readOnly).toBe(false);
    // Not a replica set member, not a mongos, and no compression was negotiated.
    expect(hello).not.toHaveProperty('setName');
    expect(hello).not.toHaveProperty('msg');
    expect(hello).not.toHaveProperty('compression');
    expect(hello).not.toHaveProperty('hosts');
  });

  it('hello carries no topologyVersion, so the driver does not stream server monitoring', async (ctx) => {
    // Embedded-only: a real mongod sends topologyVersion; the embedded store leaves it out on purpose.
    if (!target.embedded) ctx.skip();
    const hello = await target.db.admin().command({ hello: 1 });
    expect(hello).not.toHaveProperty('topologyVersion');
  });

  it('an unknown command fails with CommandNotFound (59)', async () => {
    const err = await failure(target.db.command({ notARealCommand: 1 }));
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(59);
    expect(err.codeName).toBe('CommandNotFound');
    expect(err.errmsg).toContain('notARealCommand');
  });
});

describe('features a standalone refuses', () => {
  it('a transaction fails with IllegalOperation (20)', async () => {
    const c = target.db.collection(name('txn'));
    await c.insertOne({ before: true });
    const session = target.client.startSession();
    try {
      const err = await failure(session.withTransaction(async () => {
        await c.insertOne({ inTxn: true }, { session });
      }));
      expect(serverCode(err)).toEqual({ code: 20, codeName: 'IllegalOperation' });
    } finally {
      await session.endSession();
    }
    expect(await c.countDocuments({ inTxn: true })).toBe(0);
  });

  it('startTransaction then a write fails with IllegalOperation (20)', async () => {
    const c = target.db.collection(name('txn_manual'));
    const session = target.client.startSession();
    try {
      session.startTransaction();
      const err = await failure(c.insertOne({ x: 1 }, { session }));
      expect(serverCode(err)).toEqual({ code: 20, codeName: 'IllegalOperation' });
      await session.abortTransaction().catch(() => undefined);
    } finally {
      await session.endSession();
    }
    expect(await c.countDocuments()).toBe(0);
  });

  it('a session without a transaction works normally', async () => {
    const c = target.db.collection(name('session'));
    const session = target.client.startSession();
    try {
      await c.insertOne({ s: 1 }, { session });
      expect(await c.countDocuments({}, { session })).toBe(1);
    } finally {
      await session.endSession();
    }
  });

  it('a change stream fails with code 40573', async () => {
    const c = target.db.collection(name('watch'));
    await c.insertOne({ a: 1 });
    const stream = c.watch();
    try {
      const err = await failure(stream.next());
      expect(err).toBeInstanceOf(MongoServerError);
      expect(err.code).toBe(40573);
    } finally {
      await stream.close();
    }
  });

  it('an aggregate with $changeStream fails with code 40573', async () => {
    const c = target.db.collection(name('changestream_agg'));
    await c.insertOne({ a: 1 });
    const err = await failure(c.aggregate([{ $changeStream: {} }]).toArray());
    expect(err.code).toBe(40573);
  });
});

describe('write command replies', () => {
  it('insert, update and delete replies count what they did', async () => {
    const n = name('raw_writes');
    const ins = await target.db.command({ insert: n, documents: [{ _id: 1 }, { _id: 2 }, { _id: 1 }], ordered: false });
    expect(ins.ok).toBe(1);
    expect(ins.n).toBe(2);
    expect(ins.writeErrors).toHaveLength(1);
    expect(ins.writeErrors[0]).toMatchObject({ index: 2, code: 11000, keyPattern: { _id: 1 }, keyValue: { _id: 1 } });
    const upd = await target.db.command({
      update: n,
      updates: [
        { q: { _id: 1 }, u: { $set: { a: 1 } } },
        { q: { _id: 9 }, u: { $set: { a: 1 } }, upsert: true },
      ],
    });
    expect(upd).toMatchObject({ ok: 1, n: 2, nModified: 1, upserted: [{ index: 1, _id: 9 }] });
    const del = await target.db.command({ delete: n, deletes: [{ q: { a: 1 }, limit: 0 }] });
    expect(del).toMatchObject({ ok: 1, n: 2 });
    const docs: Document[] = await target.db.collection(n).find().toArray();
    expect(docs).toEqual([{ _id: 2 }]);
  });
});
