/**
 * The plain-filter fast path against mingo (what the store uses otherwise): wherever the fast path
 * decides, it must decide as mingo does, over documents of every kind the services store.
 */
import { Long, ObjectId } from 'bson';
import { Query } from 'mingo';
import { describe, expect, it } from 'vitest';
import { hasWideNumbers, numericView, type Doc } from '../src/documents.js';
import { matchPlainFilter } from '../src/matchPlainFilter.js';

const T = new Date('2030-01-01T00:00:00Z');
const later = new Date(T.getTime() + 60_000);

const DOCS: Doc[] = [
  { _id: 'a', projectId: 'p1', userId: 'u1', n: 5, flag: true, at: T, nothing: null },
  { _id: 'b', projectId: 'p1', userId: 'u2', n: 7, flag: false, at: later },
  { _id: 'c', projectId: 'p2', n: new Long(5), at: 'not a date', nested: { k: 'v', deep: { x: 1 } } },
  { _id: 'd', projectId: 'p1', tags: ['x', 'y'], allowed: [{ credentialId: 'c1', counter: 1 }, { credentialId: 'c2' }] },
  { _id: 'e', projectId: 'p1', allowed: [{ credentialId: 'c3' }], expire: null, key: 'k1' },
  { _id: 'f', projectId: 'p1', key: 'k1', expire: later, points: 3, oid: new ObjectId('64b7f0000000000000000000') },
  { _id: 'g', projectId: 'é', userId: '\u{1F600}', n: -1 },
  { _id: 'h', projectId: 'p1', userId: '\uE000', n: 5.5 },
];

const FILTERS: Doc[] = [
  { _id: 'a', projectId: 'p1' },
  { projectId: 'p1', userId: 'u1' },
  { flag: true },
  { flag: false },
  { n: 5 },
  { n: { $gt: 4 } },
  { n: { $gte: 5, $lt: 7 } },
  { n: { $lte: -1 } },
  { at: { $gt: T } },
  { at: { $gte: T } },
  { at: T },
  { nothing: null },
  { missing: null },
  { missing: { $ne: null } },
  { nothing: { $ne: null } },
  { userId: { $ne: 'u1' } },
  { userId: { $in: ['u1', 'u2'] } },
  { userId: { $in: [] } },
  { userId: { $in: [null] } },
  { userId: { $exists: true } },
  { userId: { $exists: false } },
  { 'nested.k': 'v' },
  { 'nested.deep.x': 1 },
  { 'nested.missing': { $exists: false } },
  { 'allowed.credentialId': 'c1' },
  { 'allowed.credentialId': 'c2', projectId: 'p1' },
  { 'allowed.counter': { $exists: true } },
  { 'allowed.counter': 1 },
  { tags: 'x' },
  { tags: { $ne: 'z' } },
  { $or: [{ expire: { $gt: T } }, { expire: { $eq: null } }], key: 'k1' },
  { $and: [{ projectId: 'p1' }, { n: { $lt: 6 } }] },
  { $or: [{ userId: 'u1' }, { n: 7 }] },
  { userId: { $gt: 'u1' } },
  { userId: { $lt: '\u{1F600}' } },
  { userId: { $gt: '\uE000' } },
  { projectId: { $gte: 'p1' } },
];

function mingo(filter: Doc, doc: Doc): boolean {
  return new Query(numericView(filter)).test(hasWideNumbers(doc) ? numericView(doc) : doc);
}

describe('matchPlainFilter', () => {
  it('decides as mingo does wherever it decides, and decides the services\' common shapes', () => {
    let decided = 0;
    for (const filter of FILTERS) {
      const test = matchPlainFilter(filter);
      expect(test, JSON.stringify(filter)).not.toBeNull();
      for (const doc of DOCS) {
        const r = test!(doc);
        if (r === undefined) continue;
        decided++;
        expect({ filter, id: doc._id, r }).toEqual({ filter, id: doc._id, r: mingo(filter, doc) });
      }
    }
    expect(decided).toBeGreaterThan(FILTERS.length * DOCS.length * 0.8);
  });

  it('leaves arrays at the end of a path and int64 numbers to mingo', () => {
    expect(matchPlainFilter({ tags: 'x' })!(DOCS[3])).toBeUndefined();
    expect(matchPlainFilter({ n: 5 })!(DOCS[2])).toBeUndefined();
    expect(matchPlainFilter({ n: { $gt: 4 } })!(DOCS[2])).toBeUndefined();
    // A string is never equal to an int64, so that one is decided.
    expect(matchPlainFilter({ n: 'five' })!(DOCS[2])).toBe(false);
  });

  it('takes no other operators, operands or paths', () => {
    for (const filter of [
      {},
      { $nor: [{ a: 'x' }] },
      { $or: [] },
      { a: { $regex: 'x' } },
      { a: { $in: 'x' } },
      { a: { $in: [{ b: 1 }] } },
      { a: { $gt: null } },
      { a: { $gt: true } },
      { a: { $exists: 1 } },
      { a: { b: 'x' } },
      { a: {} },
      { 'a.0': 'x' },
      { a: new ObjectId() },
      { a: new Long(1) },
      { a: /x/ },
      { $where: 'true' },
    ]) {
      expect(matchPlainFilter(filter as Doc), JSON.stringify(filter)).toBeNull();
    }
  });
});
