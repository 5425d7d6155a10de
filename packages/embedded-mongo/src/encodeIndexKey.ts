/**
 * Index keys packed into one string whose plain string order (`<` on UTF-16 code units) is
 * MongoDB's order of the key tuples (bsonOrder.ts's compareValues). An index entry is then a
 * single flat string instead of an object holding an array of values, which is what keeps the
 * memory per indexed document small, and comparing two entries is one native string compare.
 *
 * Every value encoding starts with its type bracket (1..13) and is self-delimiting, so encodings
 * can be concatenated (a compound key, then the document id) and a tuple prefix is a string
 * prefix. Apart from the content of strings, every character is below 0x100, so keys of ASCII
 * data stay one byte per character in V8.
 */
import { Binary, BSONRegExp, BSONSymbol, Long, ObjectId, Timestamp } from 'bson';
import { Bracket, bracketOf, canonicalKey, toNumber } from './bsonOrder.js';

/** Sorts after every continuation of a key at a value boundary (brackets and id prefixes are ASCII). */
export const AFTER_PREFIX = '\u00ff';

const scratch = new DataView(new ArrayBuffer(8));

/** 8 characters ordered like the numbers: the IEEE bits with the sign flipped (negatives inverted). */
function sortableDouble(n: number): string {
  // MongoDB sorts NaN before every number; -0 equals 0.
  if (Number.isNaN(n)) return '\0\0\0\0\0\0\0\0';
  scratch.setFloat64(0, n === 0 ? 0 : n);
  const negative = scratch.getUint8(0) >= 0x80;
  let out = '';
  for (let i = 0; i < 8; i++) {
    const b = scratch.getUint8(i);
    out += String.fromCharCode(negative ? 0xff - b : i === 0 ? b ^ 0x80 : b);
  }
  return out;
}

/** A string terminated by \0, with \0 and \1 escaped so that shorter strings sort first. */
function escapedString(s: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 1) continue;
    out += s.slice(from, i) + (c === 0 ? '\u0001\u0001' : '\u0001\u0002');
    from = i + 1;
  }
  return `${out}${s.slice(from)}\0`;
}

function bytes(b: Uint8Array): string {
  let out = '';
  // Chunked: String.fromCharCode takes its bytes as arguments, which has a stack limit.
  for (let i = 0; i < b.length; i += 8192) out += String.fromCharCode(...b.subarray(i, i + 8192));
  return out;
}

function uint32(n: number): string {
  return String.fromCharCode((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

/** The order-preserving, self-delimiting encoding of one BSON value. */
export function encodeKeyValue(v: unknown): string {
  const bracket = bracketOf(v);
  const tag = String.fromCharCode(bracket);
  switch (bracket) {
    case Bracket.MinKey:
    case Bracket.MaxKey:
    case Bracket.Null:
      return tag;
    case Bracket.Number:
      // Every number type compares by value (compareValues does the same through toNumber).
      return tag + sortableDouble(toNumber(v));
    case Bracket.String:
      return tag + escapedString(String(v instanceof BSONSymbol ? v.valueOf() : v));
    case Bracket.Boolean:
      return tag + (v ? '\u0001' : '\0');
    case Bracket.Date:
      return tag + sortableDouble((v as Date).getTime());
    case Bracket.ObjectId:
      return tag + bytes((v as ObjectId).id);
    case Bracket.Timestamp: {
      const t = v as Timestamp;
      // Unsigned: a timestamp is (seconds, increment) as two uint32.
      return tag + uint32(t.high >>> 0) + uint32(t.low >>> 0);
    }
    case Bracket.Binary: {
      // MongoDB orders BinData by length, then subtype, then bytes.
      const data = v instanceof Binary ? v.buffer.subarray(0, v.position) : (v as Uint8Array);
      const sub = v instanceof Binary ? v.sub_type : 0;
      return tag + uint32(data.length) + String.fromCharCode(sub) + bytes(data);
    }
    case Bracket.RegExp: {
      const [source, flags] = v instanceof RegExp ? [v.source, v.flags] : [(v as BSONRegExp).pattern, (v as BSONRegExp).options];
      return tag + escapedString(source) + escapedString(flags);
    }
    case Bracket.Array: {
      let out = tag;
      for (const x of v as unknown[]) out += encodeKeyValue(x);
      return `${out}\0`;
    }
    default: {
      // Embedded documents compare field by field: the value's type, then the name, then the value.
      let out = tag;
      for (const [k, x] of Object.entries(v as object)) out += String.fromCharCode(bracketOf(x)) + escapedString(k) + encodeKeyValue(x);
      return `${out}\0`;
    }
  }
}

/**
 * The key a document is stored under: its `_id` encoded as an index key, so that the `_id_`
 * index's entry and the document's key are one string (indexes.ts), and ids that MongoDB deems
 * equal (1, 1.0, NumberLong(1)) get one key. Numbers are encoded as doubles, which cannot tell
 * int64 values beyond 2^53 apart, so such an id also carries its exact digits, after a separator
 * that keeps it inside its value's equality range. (An int64 that large nested inside an object
 * `_id` is not told apart from its neighbours; no caller has one.)
 */
export function documentKey(id: unknown): string {
  const key = encodeKeyValue(id);
  if (id instanceof Long && !(id instanceof Timestamp) && !Number.isSafeInteger(id.toNumber())) return `${key}${WIDE_SEPARATOR}${canonicalKey(id)}`;
  return key;
}

/** Sorts after the end of any value encoding but before AFTER_PREFIX. */
const WIDE_SEPARATOR = '\u00fe';

/** Where a type bracket's keys start and end: the bounds of a range open on one side. */
export function bracketStart(bracket: number): string {
  return String.fromCharCode(bracket);
}

export function bracketEnd(bracket: number): string {
  return String.fromCharCode(bracket + 1);
}

/** Where the escaped string starting at `pos` ends (just past its terminator). */
function skipString(key: string, pos: number): number {
  for (let i = pos; ; i++) {
    const c = key.charCodeAt(i);
    if (c === 0) return i + 1;
    if (c === 1) i++;
  }
}

/** Where the value encoded at `pos` ends. */
export function skipKeyValue(key: string, pos: number): number {
  switch (key.charCodeAt(pos)) {
    case Bracket.MinKey:
    case Bracket.MaxKey:
    case Bracket.Null:
      return pos + 1;
    case Bracket.Boolean:
      return pos + 2;
    case Bracket.Number:
    case Bracket.Date:
    case Bracket.Timestamp:
      return pos + 9;
    case Bracket.ObjectId:
      return pos + 13;
    case Bracket.String:
      return skipString(key, pos + 1);
    case Bracket.RegExp:
      return skipString(key, skipString(key, pos + 1));
    case Bracket.Binary: {
      const len = ((key.charCodeAt(pos + 1) << 24) >>> 0) + (key.charCodeAt(pos + 2) << 16) + (key.charCodeAt(pos + 3) << 8) + key.charCodeAt(pos + 4);
      return pos + 6 + len;
    }
    case Bracket.Array: {
      let p = pos + 1;
      while (key.charCodeAt(p) !== 0) p = skipKeyValue(key, p);
      return p + 1;
    }
    default: {
      let p = pos + 1;
      while (key.charCodeAt(p) !== 0) p = skipKeyValue(key, skipString(key, p + 1));
      return p + 1;
    }
  }
}

/**
 * The same characters as one flat string. Strings built with `+` are rope nodes in V8 that keep
 * every piece alive; an index holds its keys for good, so they are copied flat once. A join of
 * two non-empty parts always allocates a flat string (one with an empty part may not).
 */
export function flatString(s: string): string {
  return s.length < 2 ? s : [s.slice(0, 1), s.slice(1)].join('');
}
