/** Secondary indexes: sorted trees of key tuples → document keys, with unique and TTL support. */
import { createRequire } from 'node:module';
import { Query } from 'mingo';
import { Long, ObjectId } from 'bson';
import { BracketBound, compareValues } from './bsonOrder.js';
import { isPlainObject, numericView, valuesAtPath, type Doc } from './documents.js';
import { MongoCommandError } from './errors.js';

export interface IndexSpec {
  v: number;
  key: Record<string, number>;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  expireAfterSeconds?: number;
  partialFilterExpression?: Doc;
}

/**
 * An entry (or a search bound) in an index tree. `side` is 0 for real entries; bounds use -1/+1
 * to sort just before/after every entry that shares their (possibly shorter) prefix of values.
 */
interface Entry {
  vals: unknown[];
  id: string;
  side: number;
}

// sorted-btree is CommonJS exporting its class as `exports.default`, which ESM interop wraps once
// more; requiring it gives the class directly under `default`, with its types.
const { default: BTree } = createRequire(import.meta.url)('sorted-btree') as typeof import('sorted-btree');
type BTree<K, V> = import('sorted-btree').default<K, V>;

function compareEntries(a: Entry, b: Entry): number {
  const n = Math.min(a.vals.length, b.vals.length);
  for (let i = 0; i < n; i++) {
    const c = compareValues(a.vals[i], b.vals[i]);
    if (c !== 0) return c;
  }
  if (a.side !== b.side) return a.side < b.side ? -1 : 1;
  if (a.vals.length !== b.vals.length) return a.vals.length < b.vals.length ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** One bound of a scan over the first indexed field. */
export interface Bound {
  value: unknown;
  inclusive: boolean;
}

export class Index {
  readonly spec: IndexSpec;
  readonly fields: string[];
  private readonly tree: BTree<Entry, true> = new BTree<Entry, true>(undefined, compareEntries);
  private readonly partial: Query | null;
  /** Whether some document has more than one key here: range bounds then cannot be intersected. */
  multikey = false;

  constructor(spec: IndexSpec) {
    this.spec = spec;
    this.fields = Object.keys(spec.key);
    this.partial = spec.partialFilterExpression ? new Query(numericView(spec.partialFilterExpression)) : null;
  }

  /** Whether every document is in this index, so a scan of it can stand in for a collection scan. */
  get coversAllDocuments(): boolean {
    return !this.spec.sparse && !this.partial;
  }

  /** The key tuples of a document (several when an indexed path goes through an array); none if not indexed. */
  keysOf(doc: Doc): unknown[][] {
    if (this.partial && !this.partial.test(numericView(doc))) return [];
    const perField = this.fields.map((f) => {
      const vals = valuesAtPath(doc, f).map((v) => (v === undefined ? null : v));
      return vals.length === 0 ? [null] : dedupe(vals);
    });
    if (this.spec.sparse && this.fields.every((f) => valuesAtPath(doc, f).every((v) => v === undefined))) return [];
    return cartesian(perField);
  }

  add(id: string, keys: unknown[][]): void {
    // A document with several keys (an array on an indexed path) makes the index multikey for good.
    if (keys.length > 1) this.multikey = true;
    for (const vals of keys) this.tree.set({ vals, id, side: 0 }, true);
  }

  remove(id: string, keys: unknown[][]): void {
    for (const vals of keys) this.tree.delete({ vals, id, side: 0 });
  }

  clear(): void {
    this.tree.clear();
  }

  /** The id of another document holding one of these keys, if this is a unique index and one exists. */
  findConflict(id: string, keys: unknown[][]): { otherId: string; vals: unknown[] } | null {
    if (!this.spec.unique) return null;
    for (const vals of keys) {
      let other: string | null = null;
      this.tree.forRange({ vals, id: '', side: -1 }, { vals, id: '', side: 1 }, true, (k: Entry) => {
        if (k.id !== id) {
          other = k.id;
          return { break: true };
        }
        return undefined;
      });
      if (other !== null) return { otherId: other, vals };
    }
    return null;
  }

  /** Ids of documents whose first indexed value equals `value`. */
  idsEqualTo(value: unknown, out: Set<string>): void {
    this.tree.forRange({ vals: [value], id: '', side: -1 }, { vals: [value], id: '', side: 1 }, true, (k: Entry) => {
      out.add(k.id);
    });
  }

  /** Ids of documents whose first indexed value lies between the bounds, inside one type bracket. */
  idsInRange(bracket: number, lower: Bound | null, upper: Bound | null, out: Set<string>): void {
    const lo: Entry = lower
      ? { vals: [lower.value], id: '', side: lower.inclusive ? -1 : 1 }
      : { vals: [new BracketBound(bracket, -1)], id: '', side: -1 };
    const hi: Entry = upper
      ? { vals: [upper.value], id: '', side: upper.inclusive ? 1 : -1 }
      : { vals: [new BracketBound(bracket, 1)], id: '', side: 1 };
    if (compareEntries(lo, hi) >= 0) return;
    this.tree.forRange(lo, hi, true, (k: Entry) => {
      out.add(k.id);
    });
  }

  /** Duplicate-key error for a write that collides on this index. */
  duplicateKeyError(ns: string, vals: unknown[]): MongoCommandError {
    const keyValue: Doc = {};
    this.fields.forEach((f, i) => (keyValue[f] = vals[i]));
    const shown = this.fields.map((f, i) => `${f}: ${formatValue(vals[i])}`).join(', ');
    return new MongoCommandError('DuplicateKey', `E11000 duplicate key error collection: ${ns} index: ${this.spec.name} dup key: { ${shown} }`, {
      keyPattern: { ...this.spec.key },
      keyValue,
    });
  }
}

function dedupe(vals: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of vals) if (!out.some((x) => compareValues(x, v) === 0)) out.push(v);
  return out;
}

function cartesian(lists: unknown[][]): unknown[][] {
  return lists.reduce<unknown[][]>((acc, list) => acc.flatMap((prefix) => list.map((v) => [...prefix, v])), [[]]);
}

/** A value as MongoDB prints it inside error messages (`"a@b.c"`, `ObjectId('…')`, `5`). */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof ObjectId) return `ObjectId('${v.toHexString()}')`;
  if (v instanceof Long) return v.toString();
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  if (Array.isArray(v)) return `[ ${v.map(formatValue).join(', ')} ]`;
  if (isPlainObject(v)) return `{ ${Object.entries(v).map(([k, x]) => `${k}: ${formatValue(x)}`).join(', ')} }`;
  return String(v);
}

/** Normalizes and checks an index spec from `createIndexes`. */
export function parseIndexSpec(raw: unknown): IndexSpec {
  if (!isPlainObject(raw) || !isPlainObject(raw.key) || Object.keys(raw.key).length === 0) {
    throw new MongoCommandError('CannotCreateIndex', 'Index spec must have a non-empty key document');
  }
  const key: Record<string, number> = {};
  for (const [f, dir] of Object.entries(raw.key)) {
    const n = typeof dir === 'number' ? dir : dir instanceof Long ? dir.toNumber() : Number.NaN;
    // Only ascending/descending indexes: geo, text, hashed and wildcard are out of scope.
    if (n !== 1 && n !== -1) {
      throw new MongoCommandError('CannotCreateIndex', `Values in the index key pattern can only be 1 or -1 in the embedded store, found ${f}: ${formatValue(dir)}`);
    }
    key[f] = n;
  }
  if (typeof raw.name !== 'string' || raw.name === '') {
    throw new MongoCommandError('CannotCreateIndex', "The 'name' field is a required property of an index specification");
  }
  const spec: IndexSpec = { v: 2, key, name: raw.name };
  if (raw.unique === true) spec.unique = true;
  if (raw.sparse === true) spec.sparse = true;
  if (raw.expireAfterSeconds !== undefined) {
    const s = typeof raw.expireAfterSeconds === 'number' ? raw.expireAfterSeconds : Number(raw.expireAfterSeconds);
    if (!Number.isFinite(s) || s < 0) throw new MongoCommandError('CannotCreateIndex', 'TTL index \'expireAfterSeconds\' option must be a non-negative number');
    if (Object.keys(key).length !== 1) throw new MongoCommandError('CannotCreateIndex', 'TTL indexes are single-field indexes, compound indexes do not support TTL');
    spec.expireAfterSeconds = s;
  }
  if (raw.partialFilterExpression !== undefined) {
    if (!isPlainObject(raw.partialFilterExpression)) throw new MongoCommandError('CannotCreateIndex', 'partialFilterExpression must be an object');
    spec.partialFilterExpression = raw.partialFilterExpression;
  }
  for (const opt of ['collation', 'weights', '2dsphereIndexVersion', 'wildcardProjection', 'hidden']) {
    if (raw[opt] !== undefined) throw new MongoCommandError('CannotCreateIndex', `index option '${opt}' is not supported by the embedded store`);
  }
  return spec;
}

/** Whether two specs describe the same index (createIndexes is idempotent for identical specs). */
export function sameIndex(a: IndexSpec, b: IndexSpec): boolean {
  return (
    JSON.stringify(a.key) === JSON.stringify(b.key) &&
    !!a.unique === !!b.unique &&
    !!a.sparse === !!b.sparse &&
    a.expireAfterSeconds === b.expireAfterSeconds &&
    JSON.stringify(a.partialFilterExpression ?? null) === JSON.stringify(b.partialFilterExpression ?? null)
  );
}
