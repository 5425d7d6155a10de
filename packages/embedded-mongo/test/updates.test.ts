/**
 * Update operators, replacement, upserts, nModified accounting and the errors MongoDB 7 gives for
 * invalid updates (with their codes), through the official driver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoServerError, ObjectId, Timestamp, type Document } from 'mongodb';
import { openTarget, collections, failure, type Target } from './harness.js';

let target: Target;
beforeAll(async () => {
  target = await openTarget();
});
afterAll(async () => {
  await target?.close();
});

const coll = collections(() => target);

/** Inserts one document with `_id: 1`, applies `update` to it, and returns the stored result. */
async function applied(name: string, doc: Document, update: Document): Promise<Document | null> {
  const c = coll(name);
  await c.insertOne({ _id: 1, ...doc });
  const r = await c.updateOne({ _id: 1 }, update);
  expect(r.matchedCount).toBe(1);
  return c.findOne({ _id: 1 });
}

describe('update operators', () => {
  it('$set replaces values and creates nested paths', async () => {
    expect(await applied('set', { a: 1, x: { y: 1 } }, { $set: { a: 2, 'x.z': 3, 'p.q.r': 'deep' } })).toEqual({
      _id: 1,
      a: 2,
      x: { y: 1, z: 3 },
      p: { q: { r: 'deep' } },
    });
  });

  it('$set through an array index replaces that element', async () => {
    expect(await applied('set_index', { arr: [1, 2, 3] }, { $set: { 'arr.1': 20 } })).toEqual({ _id: 1, arr: [1, 20, 3] });
  });

  it('$unset removes fields, nested ones included, and ignores missing ones', async () => {
    expect(await applied('unset', { a: 1, b: 2, x: { y: 1, z: 2 } }, { $unset: { a: '', 'x.y': 1, nope: '' } })).toEqual({ _id: 1, b: 2, x: { z: 2 } });
  });

  it('$inc adds to existing fields and creates missing ones', async () => {
    expect(await applied('inc', { n: 5, f: 1.5 }, { $inc: { n: -7, f: 1, fresh: 3, 'deep.k': 2 } })).toEqual({
      _id: 1,
      n: -2,
      f: 2.5,
      fresh: 3,
      deep: { k: 2 },
    });
  });

  it('$mul multiplies existing fields and sets missing ones to zero', async () => {
    expect(await applied('mul', { n: 3, f: 2.5 }, { $mul: { n: 4, f: 2, missing: 5 } })).toEqual({ _id: 1, n: 12, f: 5, missing: 0 });
  });

  it('$min and $max change a field only when the value is lower or higher', async () => {
    const c = coll('minmax');
    await c.insertOne({ _id: 1, lo: 5, hi: 5, d: new Date(1000) });
    let r = await c.updateOne({ _id: 1 }, { $min: { lo: 7 }, $max: { hi: 3 } });
    expect(r.modifiedCount).toBe(0);
    r = await c.updateOne({ _id: 1 }, { $min: { lo: 2, created: 9 }, $max: { hi: 8, d: new Date(5000) } });
    expect(r.modifiedCount).toBe(1);
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, lo: 2, hi: 8, d: new Date(5000), created: 9 });
  });

  it('$push appends, and with $each and $slice keeps the last elements', async () => {
    const c = coll('push');
    await c.insertOne({ _id: 1, a: [1, 2], b: [1, 2] });
    await c.updateOne({ _id: 1 }, { $push: { a: 3, fresh: 'x' } } as Document);
    await c.updateOne({ _id: 1 }, { $push: { b: { $each: [3, 4, 5], $slice: -3 } } } as Document);
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, a: [1, 2, 3], b: [3, 4, 5], fresh: ['x'] });
    await c.updateOne({ _id: 1 }, { $push: { a: { $each: [0, 9], $slice: 2 } } } as Document);
    expect((await c.findOne({ _id: 1 }))!.a).toEqual([1, 2]);
    await c.updateOne({ _id: 1 }, { $push: { b: { $each: [1, 7], $sort: -1 } } } as Document);
    expect((await c.findOne({ _id: 1 }))!.b).toEqual([7, 5, 4, 3, 1]);
  });

  it('$push onto a field that is not an array fails with BadValue', async () => {
    const c = coll('push_nonarray');
    await c.insertOne({ _id: 1, a: 5 });
    const err = await failure(c.updateOne({ _id: 1 }, { $push: { a: 1 } } as Document));
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(2);
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, a: 5 });
  });

  it('$addToSet adds only values not already present', async () => {
    const c = coll('addtoset');
    await c.insertOne({ _id: 1, tags: ['a', 'b'], objs: [{ k: 1 }] });
    let r = await c.updateOne({ _id: 1 }, { $addToSet: { tags: 'a' } });
    expect(r.modifiedCount).toBe(0);
    r = await c.updateOne({ _id: 1 }, { $addToSet: { tags: { $each: ['b', 'c', 'c', 'd'] }, objs: { k: 1 } } });
    expect(r.modifiedCount).toBe(1);
    await c.updateOne({ _id: 1 }, { $addToSet: { objs: { k: 2 } } });
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, tags: ['a', 'b', 'c', 'd'], objs: [{ k: 1 }, { k: 2 }] });
  });

  it('$pull removes values equal to a value or matching a condition', async () => {
    const c = coll('pull');
    await c.insertOne({ _id: 1, nums: [1, 5, 2, 5, 8], tags: ['a', 'b', 'a'], items: [{ sku: 'x', qty: 1 }, { sku: 'y', qty: 5 }, { sku: 'z', qty: 0 }] });
    await c.updateOne({ _id: 1 }, { $pull: { nums: { $gte: 5 }, tags: 'a', items: { qty: { $lt: 2 } } } } as Document);
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, nums: [1, 2], tags: ['b'], items: [{ sku: 'y', qty: 5 }] });
  });

  it('$pullAll removes every listed value', async () => {
    expect(await applied('pullall', { a: [1, 2, 3, 2, 4, 1] }, { $pullAll: { a: [1, 2, 9] } })).toEqual({ _id: 1, a: [3, 4] });
  });

  it('$pop removes the last element with 1 and the first with -1', async () => {
    expect(await applied('pop', { a: [1, 2, 3], b: [1, 2, 3] }, { $pop: { a: 1, b: -1 } })).toEqual({ _id: 1, a: [1, 2], b: [2, 3] });
  });

  it('$rename moves a field, including into and out of nested documents', async () => {
    expect(await applied('rename', { a: 1, x: { y: 2 }, keep: true }, { $rename: { a: 'b', 'x.y': 'top', nope: 'never' } })).toEqual({
      _id: 1,
      keep: true,
      b: 1,
      x: {},
      top: 2,
    });
  });

  it('$currentDate sets a Date, or a Timestamp when asked', async () => {
    const c = coll('currentdate');
    await c.insertOne({ _id: 1 });
    const before = Date.now();
    await c.updateOne({ _id: 1 }, { $currentDate: { d: true, t: { $type: 'timestamp' }, d2: { $type: 'date' } } } as Document);
    const after = Date.now();
    const doc = (await c.findOne({ _id: 1 }))!;
    expect(doc.d).toBeInstanceOf(Date);
    expect(doc.d2).toBeInstanceOf(Date);
    expect((doc.d as Date).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect((doc.d as Date).getTime()).toBeLessThanOrEqual(after + 1000);
    expect(doc.t).toBeInstanceOf(Timestamp);
    const seconds = (doc.t as Timestamp).t;
    expect(seconds).toBeGreaterThanOrEqual(Math.floor(before / 1000) - 1);
    expect(seconds).toBeLessThanOrEqual(Math.ceil(after / 1000) + 1);
  });

  it('$setOnInsert does nothing when the update matches an existing document', async () => {
    const c = coll('setoninsert_existing');
    await c.insertOne({ _id: 1, a: 1 });
    const r = await c.updateOne({ _id: 1 }, { $setOnInsert: { created: true } }, { upsert: true });
    expect(r.matchedCount).toBe(1);
    expect(r.modifiedCount).toBe(0);
    expect(r.upsertedCount).toBe(0);
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, a: 1 });
  });

  it('new fields are added in lexicographic order of their names, whatever the update order', async () => {
    const c = coll('field_order');
    await c.insertOne({ _id: 1, m: 0 });
    await c.updateOne({ _id: 1 }, { $set: { z: 1, b: 1 }, $inc: { a: 1 }, $push: { c: 1 }, $min: { 'n.y': 1, 'n.x': 1 } } as Document);
    const doc = (await c.findOne({ _id: 1 }))!;
    expect(Object.keys(doc)).toEqual(['_id', 'm', 'a', 'b', 'c', 'n', 'z']);
    expect(Object.keys(doc.n as Document)).toEqual(['x', 'y']);
  });

  it('updateMany applies the operators to every match', async () => {
    const c = coll('update_many');
    await c.insertMany([{ _id: 1, g: 1, n: 1 }, { _id: 2, g: 1, n: 2 }, { _id: 3, g: 2, n: 3 }]);
    const r = await c.updateMany({ g: 1 }, { $inc: { n: 10 } });
    expect(r.matchedCount).toBe(2);
    expect(r.modifiedCount).toBe(2);
    expect((await c.find().sort({ _id: 1 }).toArray()).map((d) => d.n)).toEqual([11, 12, 3]);
  });

  it('updateOne changes only one of several matches', async () => {
    const c = coll('update_one');
    await c.insertMany([{ _id: 1, g: 1 }, { _id: 2, g: 1 }]);
    const r = await c.updateOne({ g: 1 }, { $set: { hit: true } });
    expect(r.matchedCount).toBe(1);
    expect(r.modifiedCount).toBe(1);
    expect(await c.countDocuments({ hit: true })).toBe(1);
  });

  it('an update that matches nothing and does not upsert changes nothing', async () => {
    const c = coll('update_nomatch');
    await c.insertOne({ _id: 1 });
    const r = await c.updateMany({ _id: 2 }, { $set: { a: 1 } });
    expect(r).toMatchObject({ matchedCount: 0, modifiedCount: 0, upsertedCount: 0, upsertedId: null });
    expect(await c.countDocuments()).toBe(1);
  });
});

describe('nModified', () => {
  it('counts only documents that really changed', async () => {
    const c = coll('nmodified');
    await c.insertMany([{ _id: 1, s: 1 }, { _id: 2, s: 2 }, { _id: 3, s: 1 }, { _id: 4 }]);
    const r = await c.updateMany({}, { $set: { s: 1 } });
    expect(r.matchedCount).toBe(4);
    expect(r.modifiedCount).toBe(2);
    const same = await c.updateOne({ _id: 1 }, { $set: { s: 1 }, $unset: { missing: '' } });
    expect(same.matchedCount).toBe(1);
    expect(same.modifiedCount).toBe(0);
    const replaceSame = await c.replaceOne({ _id: 1 }, { s: 1 });
    expect(replaceSame.matchedCount).toBe(1);
    expect(replaceSame.modifiedCount).toBe(0);
  });
});

describe('replacement', () => {
  it('replaceOne replaces every field but keeps _id', async () => {
    const c = coll('replace');
    await c.insertOne({ _id: 1, a: 1, b: 2 });
    const r = await c.replaceOne({ a: 1 }, { c: 3, d: { e: 4 } });
    expect(r.matchedCount).toBe(1);
    expect(r.modifiedCount).toBe(1);
    const doc = await c.findOne({ _id: 1 });
    expect(doc).toEqual({ _id: 1, c: 3, d: { e: 4 } });
    expect(Object.keys(doc!)).toEqual(['_id', 'c', 'd']);
  });

  it('a replacement may repeat the same _id, even given last', async () => {
    const c = coll('replace_same_id');
    await c.insertOne({ _id: 1, a: 1 });
    await c.replaceOne({ _id: 1 }, { b: 2, _id: 1 });
    const doc = await c.findOne({ _id: 1 });
    expect(doc).toEqual({ _id: 1, b: 2 });
    expect(Object.keys(doc!)).toEqual(['_id', 'b']);
  });

  it('replaceOne with upsert inserts the replacement with the query _id', async () => {
    const c = coll('replace_upsert');
    const r = await c.replaceOne({ _id: 7 }, { v: 'x' }, { upsert: true });
    expect(r.upsertedCount).toBe(1);
    expect(r.upsertedId).toBe(7);
    expect(await c.findOne({ _id: 7 })).toEqual({ _id: 7, v: 'x' });
  });
});

describe('upsert', () => {
  it('inserts the query equality fields, the update and $setOnInsert', async () => {
    const c = coll('upsert');
    const r = await c.updateOne(
      { email: 'a@x.io', age: { $gt: 5 }, 'profile.tier': 'gold', role: { $eq: 'admin' } },
      { $set: { name: 'A' }, $setOnInsert: { created: 1 } },
      { upsert: true },
    );
    expect(r.matchedCount).toBe(0);
    expect(r.modifiedCount).toBe(0);
    expect(r.upsertedCount).toBe(1);
    expect(r.upsertedId).toBeInstanceOf(ObjectId);
    const doc = await c.findOne({ email: 'a@x.io' });
    expect(doc).toEqual({ _id: r.upsertedId, email: 'a@x.io', profile: { tier: 'gold' }, role: 'admin', name: 'A', created: 1 });
    expect(Object.keys(doc!)[0]).toBe('_id');
    // The same upsert again now matches: $setOnInsert is not applied and nothing changes.
    const again = await c.updateOne({ email: 'a@x.io' }, { $set: { name: 'A' }, $setOnInsert: { created: 2 } }, { upsert: true });
    expect(again).toMatchObject({ matchedCount: 1, modifiedCount: 0, upsertedCount: 0 });
    expect((await c.findOne({ email: 'a@x.io' }))!.created).toBe(1);
  });

  it('takes _id from the query when it is an equality', async () => {
    const c = coll('upsert_id');
    const r = await c.updateOne({ _id: 'u1' as unknown as ObjectId }, { $inc: { n: 1 } }, { upsert: true });
    expect(r.upsertedId).toBe('u1');
    expect(await c.findOne({ _id: 'u1' as unknown as ObjectId })).toEqual({ _id: 'u1', n: 1 });
  });

  it('updateMany with upsert inserts one document when nothing matches', async () => {
    const c = coll('upsert_many');
    const r = await c.updateMany({ k: 1 }, { $set: { v: 2 } }, { upsert: true });
    expect(r.upsertedCount).toBe(1);
    expect(await c.find({}, { projection: { _id: 0 } }).toArray()).toEqual([{ k: 1, v: 2 }]);
  });
});

describe('update errors', () => {
  it('changing _id with $set fails with ImmutableField (66) and leaves the document', async () => {
    const c = coll('immutable_set');
    await c.insertOne({ _id: 1, a: 1 });
    const err = await failure(c.updateOne({ _id: 1 }, { $set: { _id: 2, a: 2 } }));
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(66);
    expect(await c.find().toArray()).toEqual([{ _id: 1, a: 1 }]);
  });

  it('$unset of _id fails with ImmutableField (66)', async () => {
    const c = coll('immutable_unset');
    await c.insertOne({ _id: 1, a: 1 });
    expect((await failure(c.updateOne({ _id: 1 }, { $unset: { _id: '' } }))).code).toBe(66);
  });

  it('a replacement with a different _id fails with ImmutableField (66)', async () => {
    const c = coll('immutable_replace');
    await c.insertOne({ _id: 1, a: 1 });
    const err = await failure(c.replaceOne({ _id: 1 }, { _id: 2, a: 2 }));
    expect(err.code).toBe(66);
    expect(await c.find().toArray()).toEqual([{ _id: 1, a: 1 }]);
  });

  it('setting _id to its current value is allowed', async () => {
    const c = coll('immutable_same');
    await c.insertOne({ _id: 1, a: 1 });
    const r = await c.updateOne({ _id: 1 }, { $set: { _id: 1, a: 2 } });
    expect(r.modifiedCount).toBe(1);
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, a: 2 });
  });

  it('two operators on the same or overlapping paths fail with ConflictingUpdateOperators (40)', async () => {
    const c = coll('conflict');
    await c.insertOne({ _id: 1, a: { b: 1 } });
    const same = await failure(c.updateOne({ _id: 1 }, { $set: { a: 1 }, $inc: { a: 1 } }));
    expect(same.code).toBe(40);
    const nested = await failure(c.updateOne({ _id: 1 }, { $set: { 'a.b': 2 }, $unset: { a: '' } }));
    expect(nested.code).toBe(40);
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, a: { b: 1 } });
  });

  it('$inc on a string fails with TypeMismatch (14)', async () => {
    const c = coll('inc_string');
    await c.insertOne({ _id: 1, s: 'text' });
    const err = await failure(c.updateOne({ _id: 1 }, { $inc: { s: 1 } }));
    expect(err.code).toBe(14);
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, s: 'text' });
  });

  it('$inc with a non-numeric argument fails with TypeMismatch (14)', async () => {
    const c = coll('inc_arg');
    await c.insertOne({ _id: 1, n: 1 });
    expect((await failure(c.updateOne({ _id: 1 }, { $inc: { n: 'x' } } as Document))).code).toBe(14);
  });

  it('$set through a scalar fails with PathNotViable (28)', async () => {
    const c = coll('path_not_viable');
    await c.insertOne({ _id: 1, a: 5 });
    const err = await failure(c.updateOne({ _id: 1 }, { $set: { 'a.b': 1 } }));
    expect(err.code).toBe(28);
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, a: 5 });
  });

  it('an unknown update operator fails with FailedToParse (9)', async () => {
    const c = coll('unknown_op');
    await c.insertOne({ _id: 1 });
    const err = await failure(c.updateOne({ _id: 1 }, { $frobnicate: { a: 1 } } as Document));
    expect(err.code).toBe(9);
  });

  it('an error in an updateMany keeps the changes made before it', async () => {
    const c = coll('partial_many');
    await c.insertMany([{ _id: 1, v: 1 }, { _id: 2, v: 'text' }, { _id: 3, v: 3 }]);
    const err = await failure(c.updateMany({}, { $inc: { v: 1 } }));
    expect(err.code).toBe(14);
    // The string document is untouched; whatever was updated was updated exactly once.
    const docs = await c.find().sort({ _id: 1 }).toArray();
    expect(docs[1].v).toBe('text');
    expect([1, 2]).toContain(docs[0].v);
    expect([3, 4]).toContain(docs[2].v);
  });
});
