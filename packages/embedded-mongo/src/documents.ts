/** Plain helpers over stored documents: cloning, dotted paths, the numeric view mingo needs. */
import { Binary, Decimal128, Double, Int32, Long, ObjectId, Timestamp } from 'bson';

export type Doc = Record<string, unknown>;

export function isPlainObject(v: unknown): v is Doc {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Deep copy of the containers (plain objects and arrays) of a document. BSON values (ObjectId,
 * Long, Binary, Date, …) are immutable in our hands and are shared, so copying is cheap and a
 * stored document is never changed in place: updates build a new version, which keeps snapshots
 * and open cursors consistent.
 */
export function cloneDoc<T>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneDoc) as T;
  if (isPlainObject(v)) {
    const out: Doc = {};
    for (const [k, x] of Object.entries(v)) out[k] = cloneDoc(x);
    return out as T;
  }
  return v;
}

/** Values at a dotted path, descending into arrays the way index keys and `distinct` do. */
export function valuesAtPath(doc: unknown, path: string): unknown[] {
  const parts = path.split('.');
  const out: unknown[] = [];
  const walk = (v: unknown, i: number): void => {
    if (i === parts.length) {
      if (Array.isArray(v)) out.push(...v);
      else out.push(v);
      return;
    }
    if (Array.isArray(v)) {
      const idx = /^\d+$/.test(parts[i]) ? Number(parts[i]) : -1;
      if (idx >= 0 && idx < v.length) walk(v[idx], i + 1);
      else for (const el of v) if (isPlainObject(el)) walk(el, i);
      return;
    }
    if (isPlainObject(v) && Object.prototype.hasOwnProperty.call(v, parts[i])) walk(v[parts[i]], i + 1);
    else out.push(undefined);
  };
  walk(doc, 0);
  return out;
}

/** The single value at a dotted path (no array expansion), or undefined. */
export function getPath(doc: unknown, path: string): unknown {
  let v: unknown = doc;
  for (const p of path.split('.')) {
    if (Array.isArray(v) && /^\d+$/.test(p)) v = v[Number(p)];
    else if (isPlainObject(v) && Object.prototype.hasOwnProperty.call(v, p)) v = v[p];
    else return undefined;
  }
  return v;
}

/** True if any value of the tree is an int64 or decimal, i.e. the document needs a numeric view. */
export function hasWideNumbers(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasWideNumbers);
  if (isPlainObject(v)) {
    for (const k in v) if (hasWideNumbers(v[k])) return true;
    return false;
  }
  return isWideNumber(v);
}

function isWideNumber(v: unknown): boolean {
  return (v instanceof Long && !(v instanceof Timestamp)) || v instanceof Decimal128 || v instanceof Double || v instanceof Int32;
}

/**
 * A copy in which int64/decimal values are plain numbers. mingo compares only values whose
 * JavaScript types match, so without this `{n: {$gt: 4}}` would never match a stored `Long(5)`.
 * Used only for matching and aggregation input; stored documents keep their types.
 */
export function numericView<T>(v: T): T {
  if (Array.isArray(v)) return v.map(numericView) as T;
  if (isPlainObject(v)) {
    const out: Doc = {};
    for (const k of Object.keys(v)) out[k] = numericView(v[k]);
    return out as T;
  }
  if (v instanceof Long && !(v instanceof Timestamp)) return v.toNumber() as T;
  if (v instanceof Decimal128) return Number.parseFloat(v.toString()) as T;
  if (v instanceof Double || v instanceof Int32) return v.valueOf() as T;
  return v;
}

/** Puts `_id` first, as MongoDB stores and returns it. */
export function idFirst(doc: Doc): Doc {
  const keys = Object.keys(doc);
  if (keys[0] === '_id' || !('_id' in doc)) return doc;
  const out: Doc = { _id: doc._id };
  for (const k of keys) if (k !== '_id') out[k] = doc[k];
  return out;
}

export function describeType(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'missing';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 31 ? 'int' : 'double';
  if (v instanceof Long && !(v instanceof Timestamp)) return 'long';
  if (v instanceof ObjectId) return 'objectId';
  if (v instanceof Date) return 'date';
  if (v instanceof Binary) return 'binData';
  if (v instanceof Timestamp) return 'timestamp';
  if (v instanceof Decimal128) return 'decimal';
  return 'object';
}
