/**
 * The packed index keys: string order must be MongoDB's value order (bsonOrder's compareValues)
 * for every pair of a varied set of values, equal values must encode equally whatever their
 * number type, and every encoding must be self-delimiting (so tuples and ids can follow it).
 */
import { Binary, BSONRegExp, Decimal128, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'bson';
import { describe, expect, it } from 'vitest';
import { compareValues } from '../src/bsonOrder.js';
import { encodeKeyValue, skipKeyValue } from '../src/encodeIndexKey.js';

const values: unknown[] = [
  new MinKey(),
  null,
  Number.NaN,
  Number.NEGATIVE_INFINITY,
  -1e300,
  Long.fromNumber(-5),
  -2.5,
  -0,
  0,
  new Int32(1),
  1.5,
  Long.fromNumber(2),
  new Decimal128('3.25'),
  2 ** 40,
  Number.POSITIVE_INFINITY,
  '',
  '\u0000',
  '\u0000a',
  '\u0001',
  'a',
  'a\u0000',
  'a\u0001b',
  'ab',
  'b',
  'é',
  '\u4e2d\u6587',
  {},
  { a: 1 },
  { a: 1, b: 2 },
  { a: 2 },
  { a: 'x' },
  { b: 1 },
  { a: { c: null } },
  [],
  [1],
  [1, 2],
  [2],
  ['a', [null]],
  new Binary(Buffer.from([])),
  new Binary(Buffer.from([9])),
  new Binary(Buffer.from([1, 2])),
  new Binary(Buffer.from([1, 2]), 4),
  new Binary(Buffer.from([1, 3])),
  new ObjectId('000000000000000000000000'),
  new ObjectId('65a1b2c3d4e5f60718293a4b'),
  new ObjectId('ffffffffffffffffffffffff'),
  false,
  true,
  new Date(-1000),
  new Date(0),
  new Date(Date.UTC(2025, 0, 1)),
  new Timestamp({ t: 1, i: 5 }),
  new Timestamp({ t: 1, i: 0xffffffff }),
  new Timestamp({ t: 0xfffffff0, i: 1 }),
  /a/,
  /a/i,
  new BSONRegExp('b', ''),
  new MaxKey(),
];

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

describe('encodeKeyValue', () => {
  it('orders every pair of values as MongoDB compares them', () => {
    const mismatches: string[] = [];
    for (const a of values) {
      for (const b of values) {
        const ka = encodeKeyValue(a);
        const kb = encodeKeyValue(b);
        const got = sign(ka < kb ? -1 : ka > kb ? 1 : 0);
        const want = sign(compareValues(a, b));
        if (got !== want) mismatches.push(`${String(a)} vs ${String(b)}: ${got} instead of ${want}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('encodes numbers equal in value alike, whatever their BSON type', () => {
    const five = encodeKeyValue(5);
    for (const v of [5.0, new Int32(5), Long.fromNumber(5), new Decimal128('5')]) expect(encodeKeyValue(v)).toBe(five);
    expect(encodeKeyValue(-0)).toBe(encodeKeyValue(0));
  });

  it('is self-delimiting: the end of each encoding is found from the key alone', () => {
    for (const v of values) {
      const key = encodeKeyValue(v);
      expect(skipKeyValue(`${key}${encodeKeyValue('next')}`, 0)).toBe(key.length);
    }
  });

  it('orders tuples field by field when encodings are concatenated', () => {
    const tuples = [
      ['a', 2],
      ['a', 10],
      ['a\u0000', 1],
      ['ab', 1],
      ['b', null],
    ];
    const keys = tuples.map((t) => t.map(encodeKeyValue).join(''));
    expect([...keys].sort()).toEqual(keys);
  });
});
