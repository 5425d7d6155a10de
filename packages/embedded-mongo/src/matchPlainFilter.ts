/**
 * A fast test for the filters the services send: field paths compared with strings, booleans,
 * numbers, dates or null, by equality, `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$in` and
 * `$exists`, combined with `$and` / `$or`. Building a mingo Query copies every operator table mingo
 * has (its Context) and compiles the condition: about a tenth of the store's CPU per operation, for
 * filters that need none of it.
 *
 * The test answers undefined ("ask mingo") wherever MongoDB's rules get subtle: an array at the end
 * of a path (an array equals a value it contains, and compares by its elements), and int64 or other
 * wrapped numbers (mingo sees them through the numeric view). Everything else follows MongoDB:
 * comparisons match only values of the same type (numbers, strings, dates), null equals a missing
 * field, and a path through an array of documents looks into each of them.
 */
import { compareValues } from './bsonOrder.js';
import { isPlainObject, type Doc } from './documents.js';

/** Decides a document, or says (undefined) that it cannot. */
export type PlainTest = (doc: Doc) => boolean | undefined;

type Literal = string | number | boolean | Date | null;
type Check = (values: unknown[]) => boolean | undefined;

const UNDECIDED = Symbol('undecided');
const COMPARISONS = new Set(['$gt', '$gte', '$lt', '$lte']);

/** The test for `filter` if every part of it is of the shapes above, else null (use mingo). */
export function matchPlainFilter(filter: Doc): PlainTest | null {
  const test = compileFilter(filter);
  return test && ((doc) => (isPlainObject(doc) ? test(doc) : undefined));
}

function compileFilter(filter: Doc): PlainTest | null {
  const parts: PlainTest[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(condition) || condition.length === 0 || !condition.every(isPlainObject)) return null;
      const branches = condition.map((c) => compileFilter(c as Doc));
      if (branches.some((b) => b === null)) return null;
      parts.push(key === '$and' ? all(branches as PlainTest[]) : any(branches as PlainTest[]));
      continue;
    }
    if (key.startsWith('$') || key === '' || key.split('.').some((p) => p === '' || /^\d+$/.test(p))) return null;
    const check = compileCondition(condition);
    if (!check) return null;
    const path = key.split('.');
    parts.push((doc) => check(valuesAt(doc, path)));
  }
  return parts.length ? all(parts) : null;
}

function all(tests: PlainTest[]): PlainTest {
  return (doc) => everyOf(tests, (t) => t(doc));
}

function any(tests: PlainTest[]): PlainTest {
  return (doc) => someOf(tests, (t) => t(doc));
}

/**
 * Three-valued AND (`decisive` false) or OR (`decisive` true): one decisive result decides, else one
 * undecided result leaves the whole undecided.
 */
function combine<T>(items: readonly T[], decide: (item: T) => boolean | undefined, decisive: boolean): boolean | undefined {
  let undecided = false;
  for (const item of items) {
    const r = decide(item);
    if (r === decisive) return decisive;
    if (r === undefined) undecided = true;
  }
  return undecided ? undefined : !decisive;
}

const everyOf = <T>(items: readonly T[], decide: (item: T) => boolean | undefined) => combine(items, decide, false);
const someOf = <T>(items: readonly T[], decide: (item: T) => boolean | undefined) => combine(items, decide, true);

function compileCondition(condition: unknown): Check | null {
  if (isLiteral(condition)) return equalTo(condition);
  if (!isPlainObject(condition)) return null;
  const entries = Object.entries(condition);
  if (entries.length === 0 || !entries.every(([op]) => op.startsWith('$'))) return null;
  const checks: Check[] = [];
  for (const [op, operand] of entries) {
    if (op === '$eq' && isLiteral(operand)) checks.push(equalTo(operand));
    else if (op === '$ne' && isLiteral(operand)) checks.push(not(equalTo(operand)));
    else if (COMPARISONS.has(op) && isLiteral(operand) && operand !== null && typeof operand !== 'boolean') checks.push(compareWith(op, operand));
    else if (op === '$in' && Array.isArray(operand) && operand.every(isLiteral)) checks.push(anyOf(operand.map(equalTo)));
    else if (op === '$exists' && typeof operand === 'boolean') checks.push((values) => values.length > 0 === operand);
    else return null;
  }
  return (values) => everyOf(checks, (c) => c(values));
}

function isLiteral(v: unknown): v is Literal {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || (v instanceof Date && !Number.isNaN(v.getTime()));
}

/** The values at a path; [] when it leads nowhere, UNDECIDED inside when it ends at an array. */
function valuesAt(doc: unknown, path: string[]): unknown[] {
  const out: unknown[] = [];
  const walk = (v: unknown, i: number): void => {
    if (i === path.length) {
      out.push(Array.isArray(v) ? UNDECIDED : v);
      return;
    }
    if (Array.isArray(v)) {
      for (const el of v) if (isPlainObject(el)) walk(el, i);
      return;
    }
    if (isPlainObject(v) && Object.prototype.hasOwnProperty.call(v, path[i])) walk(v[path[i]], i + 1);
  };
  walk(doc, 0);
  return out;
}

/** A stored value this module can compare: the same JavaScript kinds as literals; anything else (Long, ObjectId, Binary, …) is a type of its own. */
function kindOf(v: unknown): 'null' | 'string' | 'boolean' | 'number' | 'date' | 'wide' | 'other' {
  if (v === null) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return 'number';
  if (v instanceof Date) return 'date';
  // int64, int32 and double wrappers and decimals compare as numbers: mingo's numeric view decides.
  const name = (v as { _bsontype?: string } | undefined)?._bsontype;
  if (name === 'Long' || name === 'Int32' || name === 'Double' || name === 'Decimal128') return 'wide';
  return 'other';
}

function equalTo(literal: Literal): Check {
  const kind = kindOf(literal);
  const same = (v: unknown) => (kind === 'date' ? (v as Date).getTime() === (literal as Date).getTime() : v === literal);
  return (values) => (literal === null && values.length === 0) || someOf(values, (v) => decideValue(v, kind, same));
}

function compareWith(op: string, literal: string | number | Date): Check {
  // BSON's order (strings by their UTF-8 bytes, not JavaScript's UTF-16 units).
  const holds = (v: unknown) => {
    const c = compareValues(v, literal);
    return op === '$gt' ? c > 0 : op === '$gte' ? c >= 0 : op === '$lt' ? c < 0 : c <= 0;
  };
  const kind = kindOf(literal);
  return (values) => someOf(values, (v) => decideValue(v, kind, holds));
}

/** One stored value against a literal of `kind`: only values of the same kind can match. */
function decideValue(v: unknown, kind: ReturnType<typeof kindOf>, holds: (v: unknown) => boolean): boolean | undefined {
  if (v === UNDECIDED) return undefined;
  const k = kindOf(v);
  if (k === 'wide' && kind === 'number') return undefined;
  return k === kind && holds(v);
}

function anyOf(checks: Check[]): Check {
  return (values) => someOf(checks, (c) => c(values));
}

function not(check: Check): Check {
  return (values) => {
    const r = check(values);
    return r === undefined ? undefined : !r;
  };
}
