import { describe, expect, it } from 'vitest';
import { matchEqualities } from '../src/matchEqualities.js';

describe('matchEqualities', () => {
  it('decides top-level string and boolean equalities', () => {
    const test = matchEqualities({ _id: 'a', projectId: 'p', active: true })!;
    expect(test({ _id: 'a', projectId: 'p', active: true, other: 1 })).toBe(true);
    expect(test({ _id: 'a', projectId: 'q', active: true })).toBe(false);
    expect(test({ _id: 'a', projectId: 'p' })).toBe(false);
    // Typed equality: a number or another type never equals a string or boolean.
    expect(test({ _id: 'a', projectId: 'p', active: 1 })).toBe(false);
  });

  it('leaves an array field to mingo (an array equals a value it contains)', () => {
    expect(matchEqualities({ tags: 'x' })!({ tags: ['x', 'y'] })).toBeUndefined();
  });

  it('does not take operators, dotted paths, other value types or an empty filter', () => {
    for (const filter of [{ $or: [{ a: 'x' }] }, { 'a.b': 'x' }, { a: { $gt: 'x' } }, { a: 5 }, { a: null }, { a: new Date(0) }, {}]) {
      expect(matchEqualities(filter)).toBeNull();
    }
  });
});
