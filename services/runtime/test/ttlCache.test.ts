/** The shared TTL cache: expiry, explicit forgetting, and the bound on entries. */
import { describe, expect, it } from 'vitest';
import { createTtlCache } from '../ttlCache.js';

describe('createTtlCache', () => {
  it('returns a value until its time to live has passed', () => {
    let now = 1000;
    const cache = createTtlCache<string>({ ttlMs: 50, maxEntries: 10, now: () => now });
    cache.set('a', 'x');
    now += 49;
    expect(cache.get('a')).toBe('x');
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('forgets a key, or every key a predicate names', () => {
    const cache = createTtlCache<number>({ ttlMs: 1000, maxEntries: 10 });
    cache.set('pro-1/usr-1', 1);
    cache.set('pro-1/usr-2', 2);
    cache.set('pro-2/usr-1', 3);
    cache.forget('pro-1/usr-1');
    expect(cache.get('pro-1/usr-1')).toBeUndefined();
    cache.forgetWhere((k) => k.startsWith('pro-1/'));
    expect(cache.get('pro-1/usr-2')).toBeUndefined();
    expect(cache.get('pro-2/usr-1')).toBe(3);
  });

  it('keeps at most maxEntries, dropping the least recently set', () => {
    const cache = createTtlCache<number>({ ttlMs: 1000, maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 11);
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(11);
    expect(cache.get('c')).toBe(3);
  });
});
