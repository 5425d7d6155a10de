/** Secondary indexes: sorted sets of packed key strings, with unique and TTL support. */
import { createRequire } from 'node:module';
import { Query } from 'mingo';
import { Long, ObjectId } from 'bson';
import { Bracket } from './bsonOrder.js';
import { AFTER_PREFIX, bracketStart, encodeKeyValue, skipKeyValue } from './encodeIndexKey.js';
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

/** The keys one document has in one index, and which of its fields held several values (arrays). */
export interface DocKeys {
  /** Encoded key tuples (encodeIndexKey.ts), without the document id, deduplicated. */
  keys: string[];
  arrayFields: number[];
}

const NO_KEYS: DocKeys = { keys: [], arrayFields: [] };

// sorted-btree is CommonJS exporting its class as `exports.default`, which ESM interop wraps once
// more; requiring it gives the class directly under `default`, with its types.
const { default: BTree } = createRequire(import.meta.url)('sorted-btree') as typeof import('sorted-btree');
type BTree<K, V> = import('sorted-btree').default<K, V>;

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A secondary index: a sorted set of strings, each an encoded key tuple followed by the id of its
 * document. Ids make every entry unique, so documents sharing a key (thousands under one
 * `projectId`, or one array element) are still added, found and removed in O(log n) each.
 */
export class Index {
  readonly spec: IndexSpec;
  readonly fields: string[];
  private readonly tree: BTree<string, undefined> = new BTree<string, undefined>(undefined, compareStrings, 64);
  private readonly partial: Query | null;
  /** Per field: whether some document had several values there; set for good once seen. */
  readonly multikeyFields: boolean[];
  /**
   * The `_id_` index: each entry is the document's key itself (documentKey, which is the encoded
   * `_id`), the very string the collection keys the document by, so the index costs a reference
   * per document instead of a second string holding the id twice.
   */
  private readonly entryIsId: boolean;

  constructor(spec: IndexSpec) {
    this.spec = spec;
    this.fields = Object.keys(spec.key);
    this.entryIsId = spec.name === '_id_';
    this.multikeyFields = this.fields.map(() => false);
    this.partial = spec.partialFilterExpression ? new Query(numericView(spec.partialFilterExpression)) : null;
  }

  /** Whether every document is in this index, so a scan of it can stand in for a collection scan. */
  get coversAllDocuments(): boolean {
    return !this.spec.sparse && !this.partial;
  }

  /** Whether some document has more than one key here: range bounds then cannot be intersected. */
  get multikey(): boolean {
    return this.multikeyFields.some(Boolean);
  }

  get isUnique(): boolean {
    return !!this.spec.unique || this.spec.name === '_id_';
  }

  /** The key tuples of a document as values (several when an indexed path goes through an array); none if not indexed. */
  tuplesOf(doc: Doc): unknown[][] {
    const perField = this.valuesPerField(doc);
    return perField ? cartesian(perField) : [];
  }

  /** The encoded keys of a document (several when an indexed path goes through an array); none if not indexed. */
  keysOf(doc: Doc): DocKeys {
    if (this.entryIsId) return NO_KEYS;
    const perField = this.valuesPerField(doc);
    if (!perField) return NO_KEYS;
    const arrayFields: number[] = [];
    const encoded = perField.map((vals, i) => {
      // A Set of encodings dedupes in O(k), where comparing every pair was quadratic in the array's length.
      const unique = [...new Set(vals.map(encodeKeyValue))];
      if (unique.length > 1) arrayFields.push(i);
      return unique;
    });
    let keys = [''];
    for (const list of encoded) keys = list.length === 1 ? keys.map((k) => k + list[0]) : keys.flatMap((k) => list.map((v) => k + v));
    return { keys, arrayFields };
  }

  private valuesPerField(doc: Doc): unknown[][] | null {
    if (this.partial && !this.partial.test(numericView(doc))) return null;
    const raw = this.fields.map((f) => valuesAtPath(doc, f));
    if (this.spec.sparse && raw.every((vals) => vals.every((v) => v === undefined))) return null;
    return raw.map((vals) => (vals.length === 0 ? [null] : vals.map((v) => (v === undefined ? null : v))));
  }

  add(id: string, dk: DocKeys): void {
    if (this.entryIsId) {
      // A replaced document keeps its entry: the id cannot change, and the entry is the collection's own key string.
      this.tree.setIfNotPresent(id, undefined);
      return;
    }
    for (const i of dk.arrayFields) this.multikeyFields[i] = true;
    // Joined, not `+`: a flat string, so the entry does not keep the pieces it was built from.
    for (const key of dk.keys) this.tree.set([key, id].join(''), undefined);
  }

  remove(id: string, dk: DocKeys): void {
    if (this.entryIsId) {
      this.tree.delete(id);
      return;
    }
    for (const key of dk.keys) this.tree.delete(key + id);
  }

  clear(): void {
    this.tree.clear();
  }

  /** The document id at the end of an entry: what follows the encoded values of every field. */
  idOf(entry: string): string {
    if (this.entryIsId) return entry;
    let p = 0;
    for (let i = 0; i < this.fields.length; i++) p = skipKeyValue(entry, p);
    return entry.slice(p);
  }

  /** Where the encoded values of the first `n` fields of an entry end. */
  prefixEnd(entry: string, n: number): number {
    let p = 0;
    for (let i = 0; i < n; i++) p = skipKeyValue(entry, p);
    return p;
  }

  /** Entries from `low` (inclusive) to `high` (exclusive), in ascending or descending order; lazy, so a caller can stop early. */
  *entries(low: string, high: string, reverse: boolean): Generator<string> {
    if (!reverse) {
      for (const k of this.tree.keys(low)) {
        if (k >= high) return;
        yield k;
      }
      return;
    }
    const reused: (string | undefined)[] = [];
    for (const [k] of this.tree.entriesReversed(high, reused, true)) {
      if (k < low) return;
      if (k < high) yield k;
    }
  }

  /** The encoded key of another document holding one of these keys, if this is a unique index and one exists. */
  findConflict(id: string, dk: DocKeys): string | null {
    if (!this.spec.unique) return null;
    for (const key of dk.keys) {
      for (const entry of this.entries(key, key + AFTER_PREFIX, false)) {
        if (this.idOf(entry) !== id) return key;
      }
    }
    return null;
  }

  /** Ids of documents with a key in the Date bracket strictly before `date` (TTL expiry). */
  idsBefore(date: Date, out: Set<string>): void {
    for (const entry of this.entries(bracketStart(Bracket.Date), encodeKeyValue(date), false)) out.add(this.idOf(entry));
  }

  /** Duplicate-key error for a write of `doc` that collides on this index with the encoded `key`. */
  duplicateKeyError(ns: string, doc: Doc, key: string): MongoCommandError {
    const vals = this.tuplesOf(doc).find((t) => t.map(encodeKeyValue).join('') === key) ?? [];
    return this.duplicateValuesError(ns, vals);
  }

  duplicateValuesError(ns: string, vals: unknown[]): MongoCommandError {
    const keyValue: Doc = {};
    this.fields.forEach((f, i) => (keyValue[f] = vals[i]));
    const shown = this.fields.map((f, i) => `${f}: ${formatValue(vals[i])}`).join(', ');
    return new MongoCommandError('DuplicateKey', `E11000 duplicate key error collection: ${ns} index: ${this.spec.name} dup key: { ${shown} }`, {
      keyPattern: { ...this.spec.key },
      keyValue,
    });
  }
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
