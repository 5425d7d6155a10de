/**
 * Query planning through compound indexes, seen through `explain` (results are always compared
 * with what the filter must return): the longest equality prefix wins, a range or the sort on the
 * next field is walked in index order so sort + limit reads only what it returns, multikey fields
 * stay correct with thousands of documents per key, and explain has MongoDB 7's shape. Work is
 * measured in keys and documents examined, never in time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Document } from 'mongodb';
import { collections, openTarget, type Target } from './harness.js';

let target: Target;
beforeAll(async () => {
  target = await openTarget();
});
afterAll(async () => {
  await target?.close();
});

const coll = collections(() => target);

/** The index a plan reads (or COLLSCAN / IDHACK), found the way a repository test would: recursively. */
function accessOf(plan: Document): string {
  if (plan.stage === 'IXSCAN') return plan.indexName as string;
  if (plan.stage === 'COLLSCAN' || plan.stage === 'IDHACK' || plan.stage === 'EXPRESS_IXSCAN') return plan.stage as string;
  if (plan.inputStage) return accessOf(plan.inputStage as Document);
  throw new Error(`no access stage in ${JSON.stringify(plan)}`);
}

function stagesOf(plan: Document): string[] {
  return [plan.stage as string, ...(plan.inputStage ? stagesOf(plan.inputStage as Document) : [])];
}

/** 20 users of 3 projects, 600 credentials, each with a distinct time. */
function credentials(): Document[] {
  return Array.from({ length: 600 }, (_, i) => ({
    _id: `pk-${i}`,
    projectId: `prj-${i % 3}`,
    userId: `usr-${i % 20}`,
    credentialId: `cred-${i}`,
    at: new Date(Date.UTC(2025, 0, 1) + i * 60_000),
  }));
}

describe('planning with the longest equality prefix', () => {
  let c: ReturnType<typeof coll>;
  const docs = credentials();
  beforeAll(async () => {
    c = coll('plan_prefix');
    await c.insertMany(docs);
    await c.createIndex({ projectId: 1 });
    await c.createIndex({ projectId: 1, credentialId: 1 }, { unique: true });
    await c.createIndex({ projectId: 1, userId: 1, at: -1 });
  });

  it('reads one credential through {projectId, credentialId}, examining one document', async () => {
    const filter = { projectId: 'prj-1', credentialId: 'cred-4' };
    expect(await c.find(filter).toArray()).toEqual([docs[4]]);
    const explained = await c.find(filter).explain('executionStats');
    expect(accessOf(explained.queryPlanner.winningPlan)).toBe('projectId_1_credentialId_1');
    expect(explained.executionStats.totalDocsExamined).toBe(1);
  });

  it('reads one user of a project through {projectId, userId, at}, examining only their documents', async () => {
    const filter = { projectId: 'prj-2', userId: 'usr-5' };
    const expected = docs.filter((d) => d.projectId === 'prj-2' && d.userId === 'usr-5');
    expect(expected.length).toBe(10);
    const found = await c.find(filter).toArray();
    expect(found.map((d) => d._id).sort()).toEqual(expected.map((d) => d._id).sort());
    const explained = await c.find(filter).explain('executionStats');
    expect(accessOf(explained.queryPlanner.winningPlan)).toBe('projectId_1_userId_1_at_-1');
    expect(explained.executionStats.totalDocsExamined).toBe(expected.length);
  });

  it('binds prefix fields given as $eq, a one-value $in or inside $and like plain equality', async () => {
    for (const filter of [
      { projectId: { $eq: 'prj-2' }, userId: { $in: ['usr-5'] } },
      { $and: [{ projectId: 'prj-2' }, { userId: { $eq: 'usr-5' } }] },
    ]) {
      const explained = await c.find(filter).explain('executionStats');
      expect(accessOf(explained.queryPlanner.winningPlan)).toBe('projectId_1_userId_1_at_-1');
      expect(explained.executionStats.nReturned).toBe(10);
      expect(explained.executionStats.totalDocsExamined).toBe(10);
    }
  });

  it('binds a prefix field given as a multi-value $in and returns the union', async () => {
    const filter = { projectId: { $in: ['prj-0', 'prj-2'] }, userId: 'usr-5' };
    const expected = docs.filter((d) => (d.projectId === 'prj-0' || d.projectId === 'prj-2') && d.userId === 'usr-5');
    const found = await c.find(filter).toArray();
    expect(found.map((d) => d._id).sort()).toEqual(expected.map((d) => d._id).sort());
    const explained = await c.find(filter).explain('executionStats');
    expect(accessOf(explained.queryPlanner.winningPlan)).toBe('projectId_1_userId_1_at_-1');
    expect(explained.executionStats.totalDocsExamined).toBe(expected.length);
  });

  it('reads a few IDs through _id with $in rather than every match of an equality on another index', async () => {
    // The lease of a claim: `{_id: {$in: ids}, status: 'pending', due ≤ now}` must read the claimed
    // documents, not every pending one through `{status, due}` (a delivery backlog per claim).
    const q = coll('plan_id_in');
    const queued = Array.from({ length: 300 }, (_, i) => ({ _id: `d-${i}`, status: 'pending', due: new Date(Date.UTC(2025, 0, 1) + i * 1000) }));
    await q.insertMany(queued);
    await q.createIndex({ status: 1, due: 1 });
    const ids = ['d-7', 'd-150', 'd-299'];
    const filter = { _id: { $in: ids }, status: 'pending', due: { $lte: new Date(Date.UTC(2026, 0, 1)) } };
    expect((await q.find(filter).toArray()).map((d) => d._id).sort()).toEqual([...ids].sort());
    const explained = await q.find(filter).explain('executionStats');
    expect(accessOf(explained.queryPlanner.winningPlan)).toBe('_id_');
    expect(explained.executionStats.totalDocsExamined).toBe(3);
    // Sorted by another field: the three documents, sorted after reading them.
    expect((await q.find({ _id: { $in: ids }, status: 'pending' }).sort({ due: -1 }).toArray()).map((d) => d._id)).toEqual(['d-299', 'd-150', 'd-7']);
    const sortedPlan = await q.find({ _id: { $in: ids }, status: 'pending' }).sort({ due: -1 }).explain('executionStats');
    expect(sortedPlan.executionStats.totalDocsExamined).toBe(3);
    const updated = await q.updateMany(filter, { $set: { leaseOwner: 'x' } });
    expect(updated.modifiedCount).toBe(3);
    expect(await q.countDocuments({ leaseOwner: 'x' })).toBe(3);
  });

  it('still applies the whole filter to what the index returns', async () => {
    const filter = { projectId: 'prj-2', userId: 'usr-5', credentialId: { $regex: '^cred-1' } };
    const expected = docs.filter((d) => d.projectId === 'prj-2' && d.userId === 'usr-5' && String(d.credentialId).startsWith('cred-1'));
    expect((await c.find(filter).toArray()).map((d) => d._id).sort()).toEqual(expected.map((d) => d._id).sort());
  });
});

describe('a range or the sort on the field after the prefix', () => {
  let c: ReturnType<typeof coll>;
  const docs = credentials();
  const ofUser = (p: string, u: string) => docs.filter((d) => d.projectId === p && d.userId === u);
  beforeAll(async () => {
    c = coll('plan_range');
    await c.insertMany(docs);
    await c.createIndex({ projectId: 1, userId: 1, at: -1 });
  });

  it('returns the newest credentials of a user with sort + limit, reading only those', async () => {
    const expected = ofUser('prj-1', 'usr-7').sort((a, b) => b.at - a.at).slice(0, 3);
    const cursor = () => c.find({ projectId: 'prj-1', userId: 'usr-7' }).sort({ at: -1 }).limit(3);
    expect(await cursor().toArray()).toEqual(expected);
    const explained = await cursor().explain('executionStats');
    expect(accessOf(explained.queryPlanner.winningPlan)).toBe('projectId_1_userId_1_at_-1');
    expect(stagesOf(explained.queryPlanner.winningPlan)).not.toContain('SORT');
    expect(explained.executionStats.totalDocsExamined).toBe(3);
  });

  it('walks the index backwards for the opposite order', async () => {
    const expected = ofUser('prj-1', 'usr-7').sort((a, b) => a.at - b.at).slice(0, 4);
    const cursor = () => c.find({ projectId: 'prj-1', userId: 'usr-7' }).sort({ at: 1 }).limit(4);
    expect(await cursor().toArray()).toEqual(expected);
    const explained = await cursor().explain('executionStats');
    expect(stagesOf(explained.queryPlanner.winningPlan)).not.toContain('SORT');
    expect(explained.executionStats.totalDocsExamined).toBe(4);
    const ixscan = explained.queryPlanner.winningPlan.inputStage.inputStage;
    expect(ixscan.direction).toBe('backward');
  });

  it('bounds a range on the next field and combines it with the sort and a skip', async () => {
    const from = new Date(Date.UTC(2025, 0, 1) + 200 * 60_000);
    const until = new Date(Date.UTC(2025, 0, 1) + 500 * 60_000);
    const filter = { projectId: 'prj-0', userId: 'usr-0', at: { $gte: from, $lt: until } };
    const all = ofUser('prj-0', 'usr-0').filter((d) => d.at >= from && d.at < until);
    for (const dir of [1, -1] as const) {
      const sorted = [...all].sort((a, b) => (a.at - b.at) * dir);
      expect(await c.find(filter).sort({ at: dir }).toArray()).toEqual(sorted);
      expect(await c.find(filter).sort({ at: dir }).skip(1).limit(2).toArray()).toEqual(sorted.slice(1, 3));
    }
    const explained = await c.find(filter).explain('executionStats');
    expect(explained.executionStats.totalDocsExamined).toBe(all.length);
  });

  it('sorts ties on the sort field exactly as without the index', async () => {
    const t = coll('plan_ties');
    const tied = Array.from({ length: 40 }, (_, i) => ({ _id: i, p: 'x', at: Math.floor(i / 10), n: 39 - i }));
    await t.insertMany(tied);
    await t.createIndex({ p: 1, at: 1 });
    // Sorting by (at, n) where the index gives only `at`: every tie of the last document must be read.
    const expected = [...tied].sort((a, b) => b.at - a.at || a.n - b.n).slice(0, 12);
    expect(await t.find({ p: 'x' }).sort({ at: -1, n: 1 }).limit(12).toArray()).toEqual(expected);
    const page = await t.find({ p: 'x' }).sort({ at: -1 }).limit(12).toArray();
    expect(page.map((d) => d.at)).toEqual(expected.map((d) => d.at));
  });

  it('uses an index for a sort alone, with no filter', async () => {
    const t = coll('plan_sort_only');
    await t.insertMany(Array.from({ length: 100 }, (_, i) => ({ _id: i, at: (i * 37) % 100 })));
    await t.createIndex({ at: -1 });
    expect((await t.find({}).sort({ at: -1 }).limit(3).toArray()).map((d) => d.at)).toEqual([99, 98, 97]);
    const explained = await t.find({}).sort({ at: -1 }).limit(3).explain('executionStats');
    expect(accessOf(explained.queryPlanner.winningPlan)).toBe('at_-1');
    expect(explained.executionStats.totalDocsExamined).toBe(3);
  });
});

describe('multikey fields', () => {
  let c: ReturnType<typeof coll>;
  const N = 3000;
  beforeAll(async () => {
    c = coll('plan_multikey');
    await c.createIndex({ projectId: 1, tags: 1 });
    await c.insertMany(
      Array.from({ length: N }, (_, i) => ({ _id: i, projectId: 'p', tags: ['shared', `t-${i}`, `m-${i % 7}`, 'shared'], nums: [i % 10, 20 + (i % 10)] })),
    );
  });

  it('finds every one of thousands of documents sharing an array element, once each', async () => {
    const found = await c.find({ projectId: 'p', tags: 'shared' }).toArray();
    expect(found.length).toBe(N);
    expect(new Set(found.map((d) => d._id)).size).toBe(N);
    expect(await c.countDocuments({ projectId: 'p', tags: 'm-3' })).toBe(Math.ceil((N - 3) / 7));
    expect((await c.find({ projectId: 'p', tags: 't-1234' }).toArray()).map((d) => d._id)).toEqual([1234]);
    const explained = await c.find({ projectId: 'p', tags: 't-1234' }).explain('executionStats');
    expect(accessOf(explained.queryPlanner.winningPlan)).toBe('projectId_1_tags_1');
    expect(explained.executionStats.totalDocsExamined).toBe(1);
  });

  it('keeps the index right as array elements are pulled, pushed and documents removed', async () => {
    await c.updateMany({ _id: { $lt: 1000 } }, { $pull: { tags: 'shared' } } as Document);
    await c.updateMany({ _id: { $gte: 2900 } }, { $push: { tags: 'late' } } as Document);
    await c.deleteMany({ _id: { $gte: 2950 } });
    expect(await c.countDocuments({ projectId: 'p', tags: 'shared' })).toBe(N - 1000 - 50);
    expect(await c.countDocuments({ projectId: 'p', tags: 'late' })).toBe(50);
    expect(await c.countDocuments({ projectId: 'p', tags: 't-10' })).toBe(1);
    expect(await c.countDocuments({ projectId: 'p', tags: 't-2960' })).toBe(0);
  });

  it('matches a range on an array when different elements satisfy each bound', async () => {
    const m = coll('plan_multikey_range');
    await m.createIndex({ projectId: 1, nums: 1 });
    await m.insertMany([
      { _id: 'split', projectId: 'p', nums: [5, 25] },
      { _id: 'inside', projectId: 'p', nums: [15] },
      { _id: 'outside', projectId: 'p', nums: [1, 2] },
    ]);
    const found = await m.find({ projectId: 'p', nums: { $gt: 10, $lt: 20 } }).toArray();
    expect(found.map((d) => d._id).sort()).toEqual(['inside', 'split']);
  });

  it('sorts by an array field by its smallest or largest element, with a limit', async () => {
    const m = coll('plan_multikey_sort');
    await m.createIndex({ projectId: 1, nums: 1 });
    await m.insertMany([
      { _id: 'a', projectId: 'p', nums: [3, 50] },
      { _id: 'b', projectId: 'p', nums: [10] },
      { _id: 'c', projectId: 'p', nums: [1, 7] },
      { _id: 'd', projectId: 'p', nums: [20, 30] },
    ]);
    expect((await m.find({ projectId: 'p' }).sort({ nums: 1 }).limit(2).toArray()).map((d) => d._id)).toEqual(['c', 'a']);
    expect((await m.find({ projectId: 'p' }).sort({ nums: -1 }).limit(2).toArray()).map((d) => d._id)).toEqual(['a', 'd']);
  });

  it('sorts by an array field that the filter pins to one element by the whole array', async () => {
    const m = coll('plan_multikey_pinned');
    await m.createIndex({ tags: 1 });
    await m.insertMany([
      { _id: 'late', tags: ['k', 'z'] },
      { _id: 'early', tags: ['a', 'k'] },
      { _id: 'other', tags: ['b'] },
    ]);
    // Both match `tags: 'k'`, but they sort by their smallest (or largest) element, not by 'k'.
    expect((await m.find({ tags: 'k' }).sort({ tags: 1 }).limit(1).toArray()).map((d) => d._id)).toEqual(['early']);
    expect((await m.find({ tags: 'k' }).sort({ tags: -1 }).limit(1).toArray()).map((d) => d._id)).toEqual(['late']);
  });
});

describe('explain output', () => {
  let c: ReturnType<typeof coll>;
  beforeAll(async () => {
    c = coll('plan_explain');
    await c.insertMany(credentials());
    await c.createIndex({ projectId: 1, userId: 1 });
  });

  it('has queryPlanner.winningPlan with FETCH over IXSCAN naming the index and its key pattern', async () => {
    const explained = await c.find({ projectId: 'prj-0', userId: 'usr-3' }).explain('queryPlanner');
    const plan = explained.queryPlanner.winningPlan;
    expect(plan.stage).toBe('FETCH');
    expect(plan.inputStage).toMatchObject({ stage: 'IXSCAN', indexName: 'projectId_1_userId_1', keyPattern: { projectId: 1, userId: 1 }, direction: 'forward' });
    expect(plan.inputStage.indexBounds.projectId).toEqual(['["prj-0", "prj-0"]']);
    expect(explained.queryPlanner.namespace).toBe(`${target.db.databaseName}.${c.collectionName}`);
    expect(explained.executionStats).toBeUndefined();
  });

  it('reports a COLLSCAN when no index fits, and IDHACK for an _id lookup', async () => {
    expect((await c.find({ credentialId: 'cred-1' }).explain()).queryPlanner.winningPlan.stage).toBe('COLLSCAN');
    expect(accessOf((await c.find({ _id: 'pk-1' }).explain()).queryPlanner.winningPlan)).toMatch(/^(IDHACK|EXPRESS_IXSCAN)$/);
  });

  it('shows a blocking SORT when the index cannot give the order, and a LIMIT when it can', async () => {
    const sorted = await c.find({ projectId: 'prj-0' }).sort({ at: -1 }).limit(2).explain('queryPlanner');
    expect(stagesOf(sorted.queryPlanner.winningPlan)).toEqual(['SORT', 'FETCH', 'IXSCAN']);
    const limited = await c.find({ projectId: 'prj-0', userId: 'usr-3' }).limit(2).explain('queryPlanner');
    expect(stagesOf(limited.queryPlanner.winningPlan)).toEqual(['LIMIT', 'FETCH', 'IXSCAN']);
  });

  it('explains an aggregate by its leading $match, and count, delete, update and findAndModify', async () => {
    const agg = await c.aggregate([{ $match: { projectId: 'prj-0', userId: 'usr-3' } }, { $group: { _id: '$userId', n: { $sum: 1 } } }]).explain('queryPlanner');
    const aggPlan = agg.queryPlanner?.winningPlan ?? agg.stages[0].$cursor.queryPlanner.winningPlan;
    expect(accessOf(aggPlan)).toBe('projectId_1_userId_1');
    const q = { projectId: 'prj-0', userId: 'usr-3' };
    const commands: Document[] = [
      { count: c.collectionName, query: q },
      { delete: c.collectionName, deletes: [{ q, limit: 1 }] },
      { update: c.collectionName, updates: [{ q, u: { $set: { seen: true } } }] },
      { findAndModify: c.collectionName, query: q, update: { $set: { seen: true } } },
    ];
    for (const command of commands) {
      const explained = await target.db.command({ explain: command, verbosity: 'queryPlanner' });
      expect(accessOf(explained.queryPlanner.winningPlan)).toBe('projectId_1_userId_1');
    }
    // Explaining a write does not perform it.
    expect(await c.countDocuments({ seen: true })).toBe(0);
    expect(await c.countDocuments(q)).toBe(10);
  });
});
