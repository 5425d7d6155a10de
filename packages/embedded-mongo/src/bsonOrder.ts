/**
 * MongoDB's comparison order for BSON values, used by indexes and sorts.
 *
 * Written by hand because mingo's comparator orders types by JavaScript constructor name and
 * does not know BSON classes: it would sort a `Long` after strings and never equal to the
 * number it holds. MongoDB compares numbers of every BSON type (int32, int64, double, decimal)
 * by value, and orders types by "type bracket":
 * https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/
 */
import { Binary, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp, BSONRegExp, BSONSymbol } from 'bson';

/** Type brackets in MongoDB's order. */
export const Bracket = {
  MinKey: 1,
  Null: 2,
  Number: 3,
  String: 4,
  Object: 5,
  Array: 6,
  Binary: 7,
  ObjectId: 8,
  Boolean: 9,
  Date: 10,
  Timestamp: 11,
  RegExp: 12,
  MaxKey: 13,
} as const;

/** A bound that sorts before or after every value of one bracket (used for index range scans). */
export class BracketBound {
  constructor(
    readonly bracket: number,
    readonly side: -1 | 1,
  ) {}
}

export function bracketOf(v: unknown): number {
  if (v instanceof BracketBound) return v.bracket;
  if (v === null || v === undefined) return Bracket.Null;
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return Bracket.Number;
    case 'string':
      return Bracket.String;
    case 'boolean':
      return Bracket.Boolean;
  }
  if (Array.isArray(v)) return Bracket.Array;
  if (v instanceof Date) return Bracket.Date;
  if (v instanceof RegExp || v instanceof BSONRegExp) return Bracket.RegExp;
  if (isNumberLike(v)) return Bracket.Number;
  if (v instanceof ObjectId) return Bracket.ObjectId;
  if (v instanceof Binary || v instanceof Uint8Array) return Bracket.Binary;
  if (v instanceof Timestamp) return Bracket.Timestamp;
  if (v instanceof BSONSymbol) return Bracket.String;
  if (v instanceof MinKey) return Bracket.MinKey;
  if (v instanceof MaxKey) return Bracket.MaxKey;
  return Bracket.Object;
}

function isNumberLike(v: object): boolean {
  // Timestamp extends Long in the bson package, so it must be excluded explicitly.
  return (v instanceof Long && !(v instanceof Timestamp)) || v instanceof Double || v instanceof Int32 || v instanceof Decimal128;
}

/** The numeric value of any BSON number, as a JavaScript number (int64 beyond 2^53 loses precision). */
export function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Long) return v.toNumber();
  if (v instanceof Double || v instanceof Int32) return v.valueOf();
  if (v instanceof Decimal128) return Number.parseFloat(v.toString());
  return Number.NaN;
}

function compareNumbers(a: unknown, b: unknown): number {
  // Two int64 values compare exactly; mixed types compare by value.
  if (a instanceof Long && b instanceof Long && !(a instanceof Timestamp) && !(b instanceof Timestamp)) return a.compare(b);
  const x = toNumber(a);
  const y = toNumber(b);
  // MongoDB sorts NaN before every other number.
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
  if (Number.isNaN(y)) return 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

function binaryBytes(v: unknown): { sub: number; bytes: Uint8Array } {
  if (v instanceof Binary) return { sub: v.sub_type, bytes: v.buffer.subarray(0, v.position) };
  return { sub: 0, bytes: v as Uint8Array };
}

/** Total order over BSON values, as MongoDB compares them outside of arrays' "any element" rule. */
export function compareValues(a: unknown, b: unknown): number {
  const ba = bracketOf(a);
  const bb = bracketOf(b);
  if (ba !== bb) return ba < bb ? -1 : 1;
  if (a instanceof BracketBound || b instanceof BracketBound) {
    const sa = a instanceof BracketBound ? a.side : 0;
    const sb = b instanceof BracketBound ? b.side : 0;
    return sa === sb ? 0 : sa < sb ? -1 : 1;
  }
  switch (ba) {
    case Bracket.MinKey:
    case Bracket.MaxKey:
    case Bracket.Null:
      return 0;
    case Bracket.Number:
      return compareNumbers(a, b);
    case Bracket.String: {
      const x = String(a instanceof BSONSymbol ? a.valueOf() : a);
      const y = String(b instanceof BSONSymbol ? b.valueOf() : b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case Bracket.Boolean:
      return a === b ? 0 : a ? 1 : -1;
    case Bracket.Date:
      return Math.sign((a as Date).getTime() - (b as Date).getTime());
    case Bracket.ObjectId:
      return compareBytes((a as ObjectId).id, (b as ObjectId).id);
    case Bracket.Timestamp:
      return (a as Timestamp).compare(b as Timestamp);
    case Bracket.Binary: {
      const x = binaryBytes(a);
      const y = binaryBytes(b);
      // MongoDB orders BinData by length, then subtype, then bytes.
      if (x.bytes.length !== y.bytes.length) return x.bytes.length < y.bytes.length ? -1 : 1;
      if (x.sub !== y.sub) return x.sub < y.sub ? -1 : 1;
      return compareBytes(x.bytes, y.bytes);
    }
    case Bracket.RegExp: {
      const x = a instanceof RegExp ? [a.source, a.flags] : [(a as BSONRegExp).pattern, (a as BSONRegExp).options];
      const y = b instanceof RegExp ? [b.source, b.flags] : [(b as BSONRegExp).pattern, (b as BSONRegExp).options];
      return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0;
    }
    case Bracket.Array: {
      const xs = a as unknown[];
      const ys = b as unknown[];
      for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
        const c = compareValues(xs[i], ys[i]);
        if (c !== 0) return c;
      }
      return Math.sign(xs.length - ys.length);
    }
    default: {
      // Embedded documents: field by field, comparing each value's type, then name, then value.
      const ea = Object.entries(a as object);
      const eb = Object.entries(b as object);
      for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
        const [ka, va] = ea[i];
        const [kb, vb] = eb[i];
        const t = bracketOf(va) - bracketOf(vb);
        if (t !== 0) return Math.sign(t);
        if (ka !== kb) return ka < kb ? -1 : 1;
        const c = compareValues(va, vb);
        if (c !== 0) return c;
      }
      return Math.sign(ea.length - eb.length);
    }
  }
}

export function valuesEqual(a: unknown, b: unknown): boolean {
  return compareValues(a, b) === 0;
}

/**
 * A string that is equal for two values exactly when MongoDB considers them equal
 * (so `5`, `5.0` and `Long(5)` share one key). Used to key documents by `_id` and to dedupe.
 */
export function canonicalKey(v: unknown): string {
  const b = bracketOf(v);
  switch (b) {
    case Bracket.Null:
      return 'z';
    case Bracket.Number: {
      if (v instanceof Long && !(v instanceof Timestamp)) {
        const n = v.toNumber();
        return Number.isSafeInteger(n) ? `n${n}` : `n${v.toString()}`;
      }
      return `n${toNumber(v)}`;
    }
    case Bracket.String:
      return `s${String(v instanceof BSONSymbol ? v.valueOf() : v)}`;
    case Bracket.ObjectId:
      return `o${(v as ObjectId).toHexString()}`;
    case Bracket.Date:
      return `d${(v as Date).getTime()}`;
    case Bracket.Boolean:
      return v ? 'T' : 'F';
    case Bracket.Binary: {
      const { sub, bytes } = binaryBytes(v);
      return `b${sub}:${Buffer.from(bytes).toString('base64')}`;
    }
    case Bracket.Timestamp:
      return `t${(v as Timestamp).toString()}`;
    case Bracket.Array:
      return `[${(v as unknown[]).map(canonicalKey).join(',')}]`;
    case Bracket.Object:
      return `{${Object.entries(v as object)
        .map(([k, x]) => `${JSON.stringify(k)}:${canonicalKey(x)}`)
        .join(',')}}`;
    default:
      return `${b}:${String(v)}`;
  }
}
