/**
 * Index management (createIndexes, listIndexes, dropIndexes), unique-index enforcement on every
 * write path, and lookups through indexes on a larger collection (results only, never timings).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Long, MongoBulkWriteError, MongoServerError, type Document } from 'mongodb';
import { openTarget, collections, failure, type Target } from './harness.js';

let target: Target;
beforeAll(async () => {
  target = await openTarget();
});
afterAll(async () => {
  await target?.close();
});

const coll = collections(() => target);

async function indexNames(c: ReturnType<typeof coll>): Promise<string[]> {
  return (await c.listIndexes().toArray()).map((i) => i.name as string).sort();
}

describe('createIndexes and listIndexes', () => {
  it('creates single, compound, nested and unique indexes with generated names', async () => {
    const c = coll('ix_create');
    await c.insertOne({ a: 1 });
    expect(await c.createIndex({ a: 1 })).toBe('a_1');
    expect(await c.createIndex({ a: 1, b: -1 })).toBe('a_1_b_-1');
    expect(await c.createIndex({ 'x.y': 1 })).toBe('x.y_1');
    expect(await c.createIndex({ email: 1 }, { unique: true })).toBe('email_1');
    expect(await c.createIndex({ z: -1 }, { name: 'custom' })).toBe('custom');
    const list = await c.listIndexes().toArray();
    const byName = new Map(list.map((i) => [i.name as string, i]));
    expect([...byName.keys()].sort()).toEqual(['_id_', 'a_1', 'a_1_b_-1', 'custom', 'email_1', 'x.y_1']);
    expect(byName.get('_id_')).toMatchObject({ v: 2, key: { _id: 1 }, name: '_id_' });
    expect(byName.get('_id_')).not.toHaveProperty('unique');
    expect(byName.get('a_1_b_-1')!.key).toEqual({ a: 1, b: -1 });
    expect(Object.keys(byName.get('a_1_b_-1')!.key as Document)).toEqual(['a', 'b']);
    expect(byName.get('x.y_1')!.key).toEqual({ 'x.y': 1 });
    expect(byName.get('email_1')).toMatchObject({ key: { email: 1 }, unique: true });
    expect(byName.get('a_1')).not.toHaveProperty('unique');
    expect(byName.get('custom')!.key).toEqual({ z: -1 });
  });

  it('createIndex on a missing collection creates the collection', async () => {
    const c = coll('ix_autocreate');
    const reply = await target.db.command({ createIndexes: c.collectionName, indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    expect(reply).toMatchObject({ ok: 1, numIndexesBefore: 1, numIndexesAfter: 2, createdCollectionAutomatically: true });
    const names = (await target.db.listCollections({ name: c.collectionName }).toArray()).map((x) => x.name);
    expect(names).toEqual([c.collectionName]);
  });

  it('re-creating an identical index is a no-op', async () => {
    const c = coll('ix_idempotent');
    await c.createIndex({ a: 1 }, { unique: true });
    expect(await c.createIndex({ a: 1 }, { unique: true })).toBe('a_1');
    const reply = await target.db.command({ createIndexes: c.collectionName, indexes: [{ key: { a: 1 }, name: 'a_1', unique: true }] });
    expect(reply).toMatchObject({ ok: 1, numIndexesBefore: 2, numIndexesAfter: 2, note: 'all indexes already exist' });
    expect(await indexNames(c)).toEqual(['_id_', 'a_1']);
  });

  it('an index with an existing name but another key fails with IndexKeySpecsConflict (86)', async () => {
    const c = coll('ix_name_conflict');
    await c.createIndex({ a: 1 }, { name: 'idx' });
    const err = await failure(c.createIndex({ b: 1 }, { name: 'idx' }));
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(86);
    expect(err.codeName).toBe('IndexKeySpecsConflict');
    const list = await c.listIndexes().toArray();
    expect(list.find((i) => i.name === 'idx')!.key).toEqual({ a: 1 });
  });

  it('an existing key pattern under another name fails with IndexOptionsConflict (85)', async () => {
    const c = coll('ix_key_conflict');
    await c.createIndex({ a: 1 });
    const err = await failure(c.createIndex({ a: 1 }, { name: 'other' }));
    expect(err.code).toBe(85);
    expect(err.codeName).toBe('IndexOptionsConflict');
    expect(await indexNames(c)).toEqual(['_id_', 'a_1']);
  });

  it('listIndexes on a missing collection fails with NamespaceNotFound (26)', async () => {
    const err = await failure(coll('ix_list_missing').listIndexes().toArray());
    expect(err.code).toBe(26);
  });
});

describe('dropIndexes', () => {
  async function withIndexes(name: string) {
    const c = coll(name);
    await c.createIndexes([{ key: { a: 1 } }, { key: { b: 1, c: -1 } }, { key: { d: 1 }, name: 'dee' }]);
    return c;
  }

  it('drops an index by name', async () => {
    const c = await withIndexes('drop_name');
    await c.dropIndex('dee');
    expect(await indexNames(c)).toEqual(['_id_', 'a_1', 'b_1_c_-1']);
  });

  it('drops an index by key pattern', async () => {
    const c = await withIndexes('drop_key');
    await c.dropIndex({ b: 1, c: -1 } as unknown as string);
    expect(await indexNames(c)).toEqual(['_id_', 'a_1', 'dee']);
  });

  it("drops every index but _id_ with '*'", async () => {
    const c = await withIndexes('drop_all');
    expect(await c.dropIndexes()).toBe(true);
    expect(await indexNames(c)).toEqual(['_id_']);
  });

  it('refuses to drop the _id_ index', async () => {
    const c = await withIndexes('drop_id');
    const err = await failure(c.dropIndex('_id_'));
    expect(err.code).toBe(72);
    expect(await indexNames(c)).toEqual(['_id_', 'a_1', 'b_1_c_-1', 'dee']);
  });

  it('dropping an index that does not exist fails with IndexNotFound (27)', async () => {
    const c = await withIndexes('drop_missing');
    expect((await failure(c.dropIndex('nope_1'))).code).toBe(27);
    expect((await failure(c.dropIndex({ nope: 1 } as unknown as string))).code).toBe(27);
  });

  it('a dropped unique index no longer rejects duplicates', async () => {
    const c = coll('drop_unique');
    await c.createIndex({ u: 1 }, { unique: true });
    await c.insertOne({ u: 1 });
    await c.dropIndex('u_1');
    await c.insertOne({ u: 1 });
    expect(await c.countDocuments({ u: 1 })).toBe(2);
  });
});

describe('unique indexes', () => {
  async function uniqueEmail(name: string) {
    const c = coll(name);
    await c.createIndex({ email: 1 }, { unique: true });
    await c.insertOne({ _id: 1, email: 'a@x.io' } as Document);
    return c;
  }

  it('insertOne of a duplicate fails with 11000, keyPattern and keyValue', async () => {
    const c = await uniqueEmail('uq_insert');
    const err = await failure(c.insertOne({ _id: 2, email: 'a@x.io' } as Document));
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(11000);
    expect(err.keyPattern).toEqual({ email: 1 });
    expect(err.keyValue).toEqual({ email: 'a@x.io' });
    expect(err.errmsg).toMatch(/E11000 duplicate key error collection: \S+ index: email_1 dup key: \{ email: "a@x\.io" \}/);
    expect(await c.countDocuments()).toBe(1);
  });

  it('insertMany reports the duplicate by index and keeps the documents before it', async () => {
    const c = await uniqueEmail('uq_insert_many');
    const err = await failure(c.insertMany([{ email: 'b@x.io' }, { email: 'a@x.io' }, { email: 'c@x.io' }]));
    expect(err).toBeInstanceOf(MongoBulkWriteError);
    const bulk = err as unknown as MongoBulkWriteError;
    expect(bulk.code).toBe(11000);
    const writeErrors = Array.isArray(bulk.writeErrors) ? bulk.writeErrors : [bulk.writeErrors];
    expect(writeErrors).toHaveLength(1);
    expect(writeErrors[0].index).toBe(1);
    expect(writeErrors[0].code).toBe(11000);
    expect(writeErrors[0].errmsg).toMatch(/index: email_1 dup key: \{ email: "a@x\.io" \}/);
    expect(bulk.insertedCount).toBe(1);
    expect((await c.find().sort({ email: 1 }).toArray()).map((d) => d.email)).toEqual(['a@x.io', 'b@x.io']);
  });

  it('a duplicate within one insertMany batch is caught', async () => {
    const c = coll('uq_same_batch');
    await c.createIndex({ k: 1 }, { unique: true });
    const err = await failure(c.insertMany([{ k: 1 }, { k: 2 }, { k: 1 }], { ordered: false }));
    const bulk = err as unknown as MongoBulkWriteError;
    expect(bulk.code).toBe(11000);
    const writeErrors = Array.isArray(bulk.writeErrors) ? bulk.writeErrors : [bulk.writeErrors];
    expect(writeErrors.map((e) => e.index)).toEqual([2]);
    expect(await c.countDocuments()).toBe(2);
  });

  it('updateOne that would create a duplicate fails with 11000 and changes nothing', async () => {
    const c = await uniqueEmail('uq_update');
    await c.insertOne({ _id: 2, email: 'b@x.io', n: 1 } as Document);
    const err = await failure(c.updateOne({ _id: 2 } as Document, { $set: { email: 'a@x.io', n: 2 } }));
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(11000);
    expect(err.keyPattern).toEqual({ email: 1 });
    expect(err.keyValue).toEqual({ email: 'a@x.io' });
    expect(await c.findOne({ _id: 2 } as Document)).toEqual({ _id: 2, email: 'b@x.io', n: 1 });
  });

  it('updating a document without changing its unique key is not a conflict with itself', async () => {
    const c = await uniqueEmail('uq_update_self');
    const r = await c.updateOne({ _id: 1 } as Document, { $set: { email: 'a@x.io', n: 1 } });
    expect(r.modifiedCount).toBe(1);
    await c.replaceOne({ _id: 1 } as Document, { email: 'a@x.io', n: 2 });
    expect(await c.findOne({ _id: 1 } as Document)).toEqual({ _id: 1, email: 'a@x.io', n: 2 });
  });

  it('replaceOne that would create a duplicate fails with 11000', async () => {
    const c = await uniqueEmail('uq_replace');
    await c.insertOne({ _id: 2, email: 'b@x.io' } as Document);
    const err = await failure(c.replaceOne({ _id: 2 } as Document, { email: 'a@x.io' }));
    expect(err.code).toBe(11000);
    expect(err.keyValue).toEqual({ email: 'a@x.io' });
  });

  it('an upsert that would insert a duplicate fails with 11000 and inserts nothing', async () => {
    const c = await uniqueEmail('uq_upsert');
    const err = await failure(c.updateOne({ name: 'new' }, { $set: { email: 'a@x.io' } }, { upsert: true }));
    expect(err.code).toBe(11000);
    expect(err.keyValue).toEqual({ email: 'a@x.io' });
    const fromQuery = await failure(c.updateOne({ email: 'a@x.io', other: 1 }, { $set: { n: 1 } }, { upsert: true }));
    expect(fromQuery.code).toBe(11000);
    expect(await c.countDocuments()).toBe(1);
  });

  it('findOneAndUpdate that would create a duplicate fails with a top-level 11000 and keyValue', async () => {
    const c = await uniqueEmail('uq_fam');
    await c.insertOne({ _id: 2, email: 'b@x.io' } as Document);
    const err = await failure(c.findOneAndUpdate({ _id: 2 } as Document, { $set: { email: 'a@x.io' } }, { returnDocument: 'after' }));
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(11000);
    expect(err.codeName).toBe('DuplicateKey');
    expect(err.keyPattern).toEqual({ email: 1 });
    expect(err.keyValue).toEqual({ email: 'a@x.io' });
    const upsert = await failure(c.findOneAndUpdate({ _id: 3 } as Document, { $set: { email: 'b@x.io' } }, { upsert: true }));
    expect(upsert.code).toBe(11000);
    expect(upsert.keyValue).toEqual({ email: 'b@x.io' });
    expect(await c.countDocuments()).toBe(2);
  });

  it('a compound unique index rejects only a repeated combination', async () => {
    const c = coll('uq_compound');
    await c.createIndex({ a: 1, b: 1 }, { unique: true });
    await c.insertMany([{ a: 1, b: 'x' }, { a: 1, b: 'y' }, { a: 2, b: 'x' }]);
    const err = await failure(c.insertOne({ a: 1, b: 'x' }));
    expect(err.code).toBe(11000);
    expect(err.keyPattern).toEqual({ a: 1, b: 1 });
    expect(err.keyValue).toEqual({ a: 1, b: 'x' });
    expect(err.errmsg).toMatch(/index: a_1_b_1 dup key: \{ a: 1, b: "x" \}/);
    expect(await c.countDocuments()).toBe(3);
  });

  it('a unique index on a nested path compares the nested values', async () => {
    const c = coll('uq_nested');
    await c.createIndex({ 'p.q': 1 }, { unique: true });
    await c.insertMany([{ p: { q: 1, r: 1 } }, { p: { q: 2, r: 1 } }]);
    const err = await failure(c.insertOne({ p: { q: 1, r: 2 } }));
    expect(err.code).toBe(11000);
    expect(err.keyPattern).toEqual({ 'p.q': 1 });
    expect(err.keyValue).toEqual({ 'p.q': 1 });
    expect(await c.countDocuments()).toBe(2);
  });

  it('numbers of different BSON types that are equal collide in a unique index', async () => {
    const c = coll('uq_numbers');
    await c.createIndex({ n: 1 }, { unique: true });
    await c.insertOne({ n: 5 });
    expect((await failure(c.insertOne({ n: Long.fromNumber(5) }))).code).toBe(11000);
    expect((await failure(c.insertOne({ n: 5.0 }))).code).toBe(11000);
    await c.insertOne({ n: 5.5 });
    expect(await c.countDocuments()).toBe(2);
  });

  it('documents missing the field collide on null in a non-sparse unique index', async () => {
    const c = coll('uq_missing');
    await c.createIndex({ u: 1 }, { unique: true });
    await c.insertOne({ other: 1 });
    const err = await failure(c.insertOne({ other: 2 }));
    expect(err.code).toBe(11000);
    expect(err.keyValue).toEqual({ u: null });
    const explicitNull = await failure(c.insertOne({ u: null }));
    expect(explicitNull.code).toBe(11000);
  });

  it('array elements are unique keys across documents', async () => {
    const c = coll('uq_array');
    await c.createIndex({ tags: 1 }, { unique: true });
    await c.insertOne({ tags: ['a', 'b', 'b'] });
    const err = await failure(c.insertOne({ tags: ['c', 'b'] }));
    expect(err.code).toBe(11000);
    expect(err.keyValue).toEqual({ tags: 'b' });
    await c.insertOne({ tags: ['c', 'd'] });
    expect(await c.countDocuments()).toBe(2);
  });

  it('a key freed by a delete can be used again', async () => {
    const c = await uniqueEmail('uq_reuse');
    await c.deleteOne({ _id: 1 } as Document);
    await c.insertOne({ _id: 2, email: 'a@x.io' } as Document);
    expect(await c.countDocuments({ email: 'a@x.io' })).toBe(1);
  });

  it('creating a unique index over existing duplicates fails with 11000 and leaves no index', async () => {
    const c = coll('uq_build');
    await c.insertMany([{ u: 1 }, { u: 2 }, { u: 1 }]);
    const err = await failure(c.createIndex({ u: 1 }, { unique: true }));
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(11000);
    expect(await indexNames(c)).toEqual(['_id_']);
    await c.insertOne({ u: 2 });
    expect(await c.countDocuments({ u: 2 })).toBe(2);
  });

  it('a failed createIndexes of several indexes creates none of them', async () => {
    const c = coll('uq_build_many');
    await c.insertMany([{ u: 1, v: 1 }, { u: 1, v: 2 }]);
    const err = await failure(
      target.db.command({
        createIndexes: c.collectionName,
        indexes: [
          { key: { v: 1 }, name: 'v_1', unique: true },
          { key: { u: 1 }, name: 'u_1', unique: true },
        ],
      }),
    );
    expect(err.code).toBe(11000);
    expect(await indexNames(c)).toEqual(['_id_']);
  });
});

describe('lookups through indexes on 20,000 documents', () => {
  const N = 20_000;
  let c: ReturnType<typeof coll>;

  beforeAll(async () => {
    c = coll('big');
    const docs: Document[] = [];
    for (let i = 0; i < N; i++) docs.push({ _id: i, k: `key${i}`, n: i % 1000, g: { h: i % 7 } });
    await c.insertMany(docs);
    // Values of other types in the indexed field must stay out of numeric ranges.
    await c.insertMany([
      { _id: 'str', k: 'x-str', n: 'text' },
      { _id: 'null', k: 'x-null', n: null },
      { _id: 'missing', k: 'x-missing' },
      { _id: 'long', k: 'x-long', n: Long.fromNumber(12) },
      { _id: 'double', k: 'x-double', n: 11.5 },
      { _id: 'date', k: 'x-date', n: new Date(0) },
    ]);
    await c.createIndex({ k: 1 }, { unique: true });
    await c.createIndex({ n: 1 });
    await c.createIndex({ 'g.h': 1, n: -1 });
  });

  it('finds one document by an equality on a unique indexed key', async () => {
    const doc = await c.findOne({ k: 'key12345' });
    expect(doc).toEqual({ _id: 12345, k: 'key12345', n: 345, g: { h: 12345 % 7 } });
    expect(await c.findOne({ k: 'key20000' })).toBeNull();
    expect(await c.countDocuments({ k: { $in: ['key1', 'key19999', 'nope'] } })).toBe(2);
  });

  it('finds every document of an equality on a non-unique indexed key, across number types', async () => {
    const ids = (await c.find({ n: 12 }).toArray()).map((d) => d._id);
    expect(ids).toHaveLength(N / 1000 + 1);
    expect(ids).toContain('long');
    expect(ids.filter((x) => typeof x === 'number').every((x) => (x as number) % 1000 === 12)).toBe(true);
    expect(await c.countDocuments({ n: Long.fromNumber(12) })).toBe(N / 1000 + 1);
  });

  it('returns exactly the documents of a range on an indexed field, in sort order', async () => {
    const docs = await c.find({ n: { $gte: 10, $lt: 13 } }).sort({ n: 1, _id: 1 }).toArray();
    expect(docs).toHaveLength(3 * (N / 1000) + 2);
    expect(docs.every((d) => Number(d.n) >= 10 && Number(d.n) < 13)).toBe(true);
    expect(docs.map((d) => d._id).slice(0, 3)).toEqual([10, 1010, 2010]);
    expect(docs.filter((d) => typeof d._id === 'string').map((d) => d._id).sort()).toEqual(['double', 'long']);
    expect(await c.countDocuments({ n: { $gt: 998 } })).toBe(N / 1000);
    expect(await c.countDocuments({ n: { $lte: 0 } })).toBe(N / 1000);
    expect(await c.countDocuments({ n: { $gt: 11, $lte: 12 } })).toBe(N / 1000 + 2);
  });

  it('a range stays within its type: numbers never match strings, null or dates', async () => {
    expect(await c.countDocuments({ n: { $gte: 0 } })).toBe(N + 2);
    expect((await c.find({ n: { $gte: 'a' } }).toArray()).map((d) => d._id)).toEqual(['str']);
    expect((await c.find({ n: { $lt: new Date(1) } }).toArray()).map((d) => d._id)).toEqual(['date']);
    expect((await c.find({ n: null }).toArray()).map((d) => d._id).sort()).toEqual(['missing', 'null']);
  });

  it('uses the first field of a compound index for equality and the rest of the filter', async () => {
    const docs = await c.find({ 'g.h': 3, n: { $lt: 20 } }).toArray();
    const expected = [];
    for (let i = 0; i < N; i++) if (i % 7 === 3 && i % 1000 < 20) expected.push(i);
    expect(docs.map((d) => d._id as number).sort((a, b) => a - b)).toEqual(expected);
  });

  it('an $or over indexed fields returns the union', async () => {
    const docs = await c.find({ $or: [{ k: 'key5' }, { n: 999 }] }).toArray();
    expect(docs).toHaveLength(N / 1000 + 1);
  });
});

describe('indexes on arrays', () => {
  it('a range on an indexed array field matches when different elements satisfy each bound', async () => {
    const c = coll('multikey_range');
    await c.insertMany([
      { _id: 1, a: [1, 50] },
      { _id: 2, a: [15] },
      { _id: 3, a: 5 },
      { _id: 4, a: [30, 40] },
      { _id: 5, a: 15 },
      { _id: 6, a: [100, 'b'] },
    ] as Document[]);
    const ids = async (filter: Document) => (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    expect(await ids({ a: { $gt: 10, $lt: 20 } })).toEqual([1, 2, 5]);
    expect(await ids({ a: { $gt: 50, $lt: 'c' } })).toEqual([6]);
    await c.createIndex({ a: 1 });
    expect(await ids({ a: { $gt: 10, $lt: 20 } })).toEqual([1, 2, 5]);
    expect(await ids({ a: { $gt: 50, $lt: 'c' } })).toEqual([6]);
    expect(await ids({ a: { $gte: 40, $lte: 40 } })).toEqual([1, 4]);
    // $elemMatch needs one element to satisfy both bounds.
    const elem = (await c.find({ a: { $elemMatch: { $gt: 10, $lt: 20 } } }).sort({ _id: 1 }).toArray()).map((d) => d._id);
    expect(elem).toEqual([2]);
  });

  it('a range on an indexed path through an array of documents matches like an unindexed one', async () => {
    const c = coll('multikey_nested');
    await c.insertMany([
      { _id: 1, a: [{ b: 1 }, { b: 50 }] },
      { _id: 2, a: [{ b: 15 }] },
      { _id: 3, a: [{ b: 5 }] },
    ] as Document[]);
    await c.createIndex({ 'a.b': 1 });
    const ids = (await c.find({ 'a.b': { $gt: 10, $lt: 20 } }).sort({ _id: 1 }).toArray()).map((d) => d._id);
    expect(ids).toEqual([1, 2]);
    expect((await c.find({ 'a.b': 50 }).toArray()).map((d) => d._id)).toEqual([1]);
  });
});
