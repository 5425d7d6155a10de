/**
 * Picks an index for a filter (and sort) so that a lookup reads only the keys it needs. A plan
 * binds the longest prefix of a compound index by equality (`v`, `{$eq: v}`, `{$in: [...]}`),
 * then a range or the sort on the next field: `{projectId, userId}` sorted by `at` on
 * `{projectId: 1, userId: 1, at: -1}` walks exactly one user's entries, newest first, and can
 * stop after `limit` documents. The result is a superset of the matches: every candidate is
 * still tested against the full filter, so the planner only has to be fast, never exact.
 */
import { BSONRegExp } from 'bson';
import { Bracket, bracketOf } from './bsonOrder.js';
import { isPlainObject, type Doc } from './documents.js';
import { AFTER_PREFIX, bracketEnd, bracketStart, encodeKeyValue } from './encodeIndexKey.js';
import { formatValue, type Index } from './indexes.js';

/** One contiguous piece of an index: entries from `low` (inclusive) to `high` (exclusive). */
export interface Interval {
  low: string;
  high: string;
}

export interface IndexPlan {
  kind: 'ixscan';
  index: Index;
  /** In scan order (descending when `reverse`). */
  intervals: Interval[];
  reverse: boolean;
  /** Fields bound by equality (one value each, or a few from `$in`). */
  equalityFields: number;
  /** Whether the scan yields documents in the requested sort order (always true without a sort). */
  sorted: boolean;
  /**
   * How many leading fields of an entry decide its place in the sort: once `limit` documents are
   * found, entries that still share this prefix with the last one may tie with it and are read
   * too. Null when any `limit` matches are a correct answer.
   */
  sortPrefixFields: number | null;
  /** MongoDB's explain rendering of the bounds, per field. */
  bounds: Record<string, string[]>;
}

export type QueryPlan = { kind: 'idhack'; id: unknown } | IndexPlan | { kind: 'collscan' };

/** Upper bound on the point combinations of `$in` prefixes, so a plan never explodes. */
const MAX_POINTS = 256;

interface FieldBinding {
  /** Encoded point values (equality) or null when the field is not bound by equality. */
  points: string[] | null;
  shown: string[];
}

interface Candidate {
  plan: IndexPlan;
  score: number[];
}

/** Chooses how to run a filter (and sort): by `_id`, through the index that bounds the scan best, or by a collection scan. */
export function planQuery(filter: Doc, indexes: Index[], sort?: Doc): QueryPlan {
  if (Object.keys(filter).length === 1 && '_id' in filter && isPointValue(filter._id) && !sort) return { kind: 'idhack', id: filter._id };
  const conditions = topLevelConditions(filter);
  const sortFields = sort ? Object.entries(sort).map(([path, dir]) => ({ path, dir: Number(dir) })) : [];
  let best: Candidate | null = null;
  for (const index of indexes) {
    if (!index.coversAllDocuments) continue;
    const candidate = planIndex(index, conditions, sortFields);
    if (candidate && (!best || compareScores(candidate.score, best.score) > 0)) best = candidate;
  }
  return best ? best.plan : { kind: 'collscan' };
}

function compareScores(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] > b[i] ? 1 : -1;
  return 0;
}

function planIndex(index: Index, conditions: Map<string, unknown[]>, sortFields: { path: string; dir: number }[]): Candidate | null {
  const bindings: FieldBinding[] = [];
  let combos = 1;
  for (const field of index.fields) {
    const points = equalityPoints(conditions.get(field) ?? []);
    if (!points || combos * Math.max(points.length, 1) > MAX_POINTS) break;
    combos *= points.length;
    bindings.push({ points: points.map(encodeKeyValue), shown: points.map((v) => `[${formatValue(v)}, ${formatValue(v)}]`) });
  }
  const k = bindings.length;
  const next = index.fields[k];
  const range = next === undefined ? null : rangeOf(conditions.get(next) ?? [], index.multikeyFields[k]);
  // The sort, less the fields fixed by equality, must be exactly the next field for the scan to
  // yield it in order. An array field is not fixed by equality: `{tags: 'a'}` matches documents
  // whose arrays sort by other elements.
  const boundPaths = new Set(index.fields.slice(0, k).filter((_, i) => !index.multikeyFields[i]));
  const residualSort = sortFields.filter((s) => !boundPaths.has(s.path));
  const sortsByNext =
    residualSort.length === 1 && residualSort[0].path === next && combos === 1 && !index.multikeyFields[k] && Math.abs(residualSort[0].dir) === 1;
  // Without a sort any order will do; a sort on fields fixed by equality ties every match.
  const anyOrder = sortFields.length === 0 || (residualSort.length === 0 && combos <= 1);
  const sorted = anyOrder || sortsByNext;
  if (k === 0 && !range && !sortsByNext) return null;

  const reverse = sortsByNext && residualSort[0].dir === -1;
  const prefixes = combinations(bindings.map((b) => b.points!)).sort();
  const intervals: Interval[] = [];
  for (const prefix of prefixes) {
    if (range?.empty) break;
    if (range) intervals.push({ low: prefix + range.low, high: prefix + range.high });
    else intervals.push({ low: prefix, high: prefix + AFTER_PREFIX });
  }
  if (reverse) intervals.reverse();

  const bounds: Record<string, string[]> = {};
  index.fields.forEach((f, i) => {
    if (i < k) bounds[f] = bindings[i].shown;
    else if (i === k && range) bounds[f] = [range.shown];
    else bounds[f] = ['[MinKey, MaxKey]'];
  });
  const plan: IndexPlan = {
    kind: 'ixscan',
    index,
    intervals,
    reverse,
    equalityFields: k,
    sorted,
    sortPrefixFields: anyOrder ? null : k + 1,
    bounds,
  };
  // Best first: a unique index bound on every field (one document per point at most, so `_id:
  // {$in: [4 IDs]}` reads 4 documents, however many match the other conditions; MongoDB's
  // trial runs pick it too), more equality fields, a range on the next one, the requested order,
  // fewer intervals, a shorter index. Without it `{_id: {$in: ids}, status: 'pending'}` walked
  // every pending document of `{status, …}` (a lease's updateMany, scanning a whole backlog).
  const pointLookup = index.isUnique && k === index.fields.length ? 1 : 0;
  const score = [pointLookup, pointLookup ? -combos : 0, k, range ? 1 : 0, sortFields.length && sorted ? 1 : 0, -combos, -index.fields.length];
  return { plan, score };
}

/** `field: condition` pairs that every match must satisfy (the top level and `$and` branches), grouped by field. */
function topLevelConditions(filter: Doc, out = new Map<string, unknown[]>()): Map<string, unknown[]> {
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$and' && Array.isArray(v)) {
      for (const branch of v) if (isPlainObject(branch)) topLevelConditions(branch, out);
    } else if (!k.startsWith('$')) {
      const list = out.get(k);
      if (list) list.push(v);
      else out.set(k, [v]);
    }
  }
  return out;
}

/** A value that an index can look up directly (arrays and documents match in ways the index does not store). */
function isPointValue(v: unknown): boolean {
  return !Array.isArray(v) && !isPlainObject(v) && !(v instanceof RegExp) && !(v instanceof BSONRegExp);
}

function isOperatorDoc(cond: unknown): cond is Doc {
  if (!isPlainObject(cond)) return false;
  const ops = Object.keys(cond);
  return ops.length > 0 && ops.every((k) => k.startsWith('$'));
}

/** The values a field must equal (one for `v`/`$eq`, several for `$in`), or null when no condition pins it. */
function equalityPoints(conds: unknown[]): unknown[] | null {
  let best: unknown[] | null = null;
  for (const cond of conds) {
    let points: unknown[] | null = null;
    if (isPointValue(cond)) points = [cond];
    else if (isOperatorDoc(cond)) {
      if ('$eq' in cond && isPointValue(cond.$eq)) points = [cond.$eq];
      else if (Array.isArray(cond.$in) && cond.$in.every(isPointValue)) points = cond.$in;
    }
    // Several conditions on one field must all hold: the one with the fewest values bounds best.
    if (points && (!best || points.length < best.length)) best = points;
  }
  return best;
}

interface Range {
  low: string;
  high: string;
  shown: string;
  empty: boolean;
}

/** The `$gt/$gte/$lt/$lte` bounds on a field, as encoded key bounds inside one type bracket. */
function rangeOf(conds: unknown[], multikey: boolean): Range | null {
  for (const cond of conds) {
    if (!isOperatorDoc(cond)) continue;
    let lower: { value: unknown; inclusive: boolean } | null = null;
    let upper: { value: unknown; inclusive: boolean } | null = null;
    let usable = true;
    for (const op of ['$gt', '$gte', '$lt', '$lte'] as const) {
      if (!(op in cond)) continue;
      const value = cond[op];
      if (!isPointValue(value)) usable = false;
      else if (op === '$gt' || op === '$gte') lower = { value, inclusive: op === '$gte' };
      else upper = { value, inclusive: op === '$lte' };
    }
    if (!usable || (!lower && !upper)) continue;
    // On an array, `{$gt: 10, $lt: 20}` may be satisfied by two different elements, so a multikey
    // field can only be scanned by one of the bounds.
    if (lower && upper && multikey) upper = null;
    const bracket = bracketOf((lower ?? upper)!.value);
    const shownLow = lower ? `${lower.inclusive ? '[' : '('}${formatValue(lower.value)}` : `[${bracketFloor(bracket)}`;
    const shownHigh = upper ? `${formatValue(upper.value)}${upper.inclusive ? ']' : ')'}` : `${bracketCeiling(bracket)}]`;
    const shown = `${shownLow}, ${shownHigh}`;
    // MongoDB compares only within one type bracket, so bounds of two brackets match nothing.
    if (lower && upper && bracketOf(upper.value) !== bracket) return { low: '', high: '', shown, empty: true };
    const low = lower ? encodeKeyValue(lower.value) + (lower.inclusive ? '' : AFTER_PREFIX) : bracketStart(bracket);
    const high = upper ? encodeKeyValue(upper.value) + (upper.inclusive ? AFTER_PREFIX : '') : bracketEnd(bracket);
    return { low, high, shown, empty: low >= high };
  }
  return null;
}

/** How explain prints the open end of a type bracket, as mongod does for numbers and strings. */
function bracketFloor(bracket: number): string {
  return bracket === Bracket.Number ? '-inf.0' : bracket === Bracket.String ? '""' : 'MinKey';
}

function bracketCeiling(bracket: number): string {
  return bracket === Bracket.Number ? 'inf.0' : bracket === Bracket.String ? '{}' : 'MaxKey';
}

/** Every concatenation of one encoded value per field (the key prefixes of an `$in` product). */
function combinations(lists: string[][]): string[] {
  let out = [''];
  for (const list of lists) out = out.flatMap((prefix) => list.map((v) => prefix + v));
  return out;
}
