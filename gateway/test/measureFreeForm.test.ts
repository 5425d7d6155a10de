/**
 * The bounds of free-form JSON: size exactly as JSON.stringify's UTF-8 length, element count,
 * depth; an iterative walk, so the shapes that once overflowed the stack or held the event loop
 * are refused with a message instead.
 */
import { describe, expect, it } from 'vitest';
import { decodeMessage, JsonShapeError } from '../src/jsonCodec.js';
import { FREE_FORM_LIMITS, measureFreeForm } from '../src/measureFreeForm.js';
import { CreateChallengeRequestSchema } from '../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';

const big = { maxBytes: 1 << 30, maxElements: 1 << 30, maxDepth: 1 << 30 };

/** The smallest byte limit a value passes: its exact serialized size, as the walk counts it. */
function measuredBytes(value: unknown): number {
  let lo = 0;
  let hi = 1 << 20;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (measureFreeForm(value, { ...big, maxBytes: mid }) === null) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

describe('measureFreeForm', () => {
  it('counts bytes exactly as Buffer.byteLength(JSON.stringify(value))', () => {
    const values: unknown[] = [
      {},
      [],
      { a: 1 },
      { a: [1, 2, { b: null }], c: 'x', d: true, e: false, f: -1.5e-7 },
      { 'ké"y\n': 'välue with "quotes" and \\ and \u0001 and 😀' },
      [[[[]]], {}, [{}], 'a', 0, 123456789.125],
      { nested: { list: Array.from({ length: 50 }, (_, i) => ({ i, s: 'x'.repeat(i) })) } },
    ];
    for (const v of values) expect(measuredBytes(v)).toBe(Buffer.byteLength(JSON.stringify(v)));
  });

  it('accepts 4096 bytes and refuses 4097', () => {
    const ofSize = (n: number) => ({ a: 'x'.repeat(n - '{"a":""}'.length) });
    expect(Buffer.byteLength(JSON.stringify(ofSize(4096)))).toBe(4096);
    expect(measureFreeForm(ofSize(4096))).toBeNull();
    expect(measureFreeForm(ofSize(4097))).toBe('must be at most 4096 bytes as JSON');
  });

  it('refuses more values than the limit, even in one huge array', () => {
    expect(FREE_FORM_LIMITS.maxElements).toBe(1024);
    // 1023 zeros plus the field's own object: exactly the limit.
    expect(measureFreeForm({ a: new Array(1022).fill(0) }, { ...FREE_FORM_LIMITS, maxBytes: 1 << 20 })).toBeNull();
    expect(measureFreeForm({ a: new Array(1023).fill(0) }, { ...FREE_FORM_LIMITS, maxBytes: 1 << 20 })).toBe('must hold at most 1024 values');
    expect(measureFreeForm({ a: new Array(125_000).fill(0) })).toBe('must hold at most 1024 values');
    const wide: Record<string, number> = {};
    for (let i = 0; i < 125_000; i++) wide[`k${i}`] = i;
    expect(measureFreeForm(wide)).toBe('must hold at most 1024 values');
  });

  it('walks 20,000 levels without recursion and names the depth bound', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    expect(measureFreeForm(deep)).toBe('nests deeper than 32 levels');
    let arrays: unknown = 0;
    for (let i = 0; i < 20_000; i++) arrays = [arrays];
    expect(measureFreeForm(arrays)).toBe('nests deeper than 32 levels');
  });

  it('ignores inherited properties, as JSON.stringify does', () => {
    const withProto = Object.create({ inherited: 'x'.repeat(10_000) }) as Record<string, unknown>;
    withProto.own = 1;
    expect(measuredBytes(withProto)).toBe(Buffer.byteLength(JSON.stringify(withProto)));
  });
});

describe('decodeMessage with free-form fields out of bounds', () => {
  it('reports the field and a size summary, not a type problem', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    const cases: [unknown, string][] = [
      [{ a: new Array(100_000).fill(0) }, 'must hold at most 1024 values'],
      [{ a: 'x'.repeat(5000) }, 'must be at most 4096 bytes as JSON'],
      [deep, 'nests deeper than 32 levels'],
    ];
    for (const [challengeMetadata, message] of cases) {
      let error: unknown;
      try {
        decodeMessage(CreateChallengeRequestSchema, { challengeMetadata });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(JsonShapeError);
      expect((error as JsonShapeError).problems).toEqual([{ field: 'challengeMetadata', message }]);
      expect((error as JsonShapeError).summary).toBe('the request has fields over their size limits');
    }
  });

  it('keeps the type summary when any problem is one of type', () => {
    let error: JsonShapeError | undefined;
    try {
      decodeMessage(CreateChallengeRequestSchema, { challengeMetadata: { a: 'x'.repeat(5000) }, lifetimeSeconds: 'soon' });
    } catch (err) {
      error = err as JsonShapeError;
    }
    expect(error?.summary).toBe('the request has fields of the wrong type');
  });
});
