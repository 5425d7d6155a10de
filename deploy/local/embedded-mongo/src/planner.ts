/**
 * Picks an index for a filter so that equality, `$in` and range lookups read only the matching
 * keys instead of the whole collection. The result is a superset of the matches: every candidate
 * is still tested against the full filter, so the planner only has to be fast, never exact.
 */
import { BSONRegExp } from 'bson';
import { bracketOf } from './bsonOrder.js';
import { isPlainObject, type Doc } from './documents.js';
import type { Bound, Index } from './indexes.js';

interface Plan {
  /** Lower is better: equality on a unique index beats equality, beats `$in`, beats a range. */
  cost: number;
  run(out: Set<string>): void;
}

/** Candidate document ids for the filter, or null when no index helps (scan everything). */
export function planCandidates(filter: Doc, indexes: Index[]): Set<string> | null {
  let best: Plan | null = null;
  for (const [path, cond] of topLevelConditions(filter)) {
    for (const index of indexes) {
      if (index.fields[0] !== path || !index.coversAllDocuments) continue;
      const plan = planFor(index, cond);
      if (plan && (!best || plan.cost < best.cost)) best = plan;
    }
  }
  if (!best) return null;
  const out = new Set<string>();
  best.run(out);
  return out;
}

/** `field: condition` pairs that every match must satisfy (the top level and `$and` branches). */
function topLevelConditions(filter: Doc): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$and' && Array.isArray(v)) {
      for (const branch of v) if (isPlainObject(branch)) out.push(...topLevelConditions(branch));
    } else if (!k.startsWith('$')) {
      out.push([k, v]);
    }
  }
  return out;
}

/** A value that an index can look up directly (arrays and documents match in ways the index does not store). */
function isPointValue(v: unknown): boolean {
  return !Array.isArray(v) && !isPlainObject(v) && !(v instanceof RegExp) && !(v instanceof BSONRegExp);
}

function planFor(index: Index, cond: unknown): Plan | null {
  const unique = index.spec.unique || index.spec.name === '_id_';
  if (isPointValue(cond)) return { cost: unique ? 0 : 1, run: (out) => index.idsEqualTo(cond, out) };
  if (!isPlainObject(cond)) return null;
  const ops = Object.keys(cond);
  if (ops.length === 0 || !ops.every((k) => k.startsWith('$'))) return null;
  if ('$eq' in cond && isPointValue(cond.$eq)) {
    return { cost: unique ? 0 : 1, run: (out) => index.idsEqualTo(cond.$eq, out) };
  }
  if (Array.isArray(cond.$in) && cond.$in.every(isPointValue)) {
    const values = cond.$in;
    return { cost: 2, run: (out) => values.forEach((v) => index.idsEqualTo(v, out)) };
  }
  let lower: Bound | null = null;
  let upper: Bound | null = null;
  for (const op of ['$gt', '$gte', '$lt', '$lte'] as const) {
    if (!(op in cond)) continue;
    const value = cond[op];
    if (!isPointValue(value)) return null;
    if (op === '$gt' || op === '$gte') lower = { value, inclusive: op === '$gte' };
    else upper = { value, inclusive: op === '$lte' };
  }
  if (!lower && !upper) return null;
  // On an array, `{$gt: 10, $lt: 20}` may be satisfied by two different elements, so a multikey
  // index can only be scanned by one of the bounds.
  if (lower && upper && index.multikey) upper = null;
  const bracket = bracketOf((lower ?? upper)!.value);
  // MongoDB compares only within one type bracket, so bounds of two brackets match nothing.
  if (lower && upper && bracketOf(upper.value) !== bracket) return { cost: 0, run: () => undefined };
  return { cost: 3, run: (out) => index.idsInRange(bracket, lower, upper, out) };
}
