/** Challenge values at rest: HMAC-SHA256 under a key derived from the master key, bound to the challenge ID. */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createValueHasher } from '../src/domain/valueHasher.js';

const KEY_1 = Buffer.alloc(32, 1);
const KEY_2 = Buffer.alloc(32, 2);

describe('createValueHasher', () => {
  const hasher = createValueHasher(KEY_1);

  it('hashes deterministically to 64 hex characters that do not contain the value', () => {
    const h = hasher.hash('cha-1', '123456');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(hasher.hash('cha-1', '123456')).toBe(h);
    expect(h).not.toContain('123456');
  });

  it('is not a plain (unkeyed) hash of the value', () => {
    const h = hasher.hash('cha-1', '123456');
    expect(h).not.toBe(createHash('sha256').update('123456').digest('hex'));
    expect(h).not.toBe(createHash('sha256').update('cha-1\x00123456').digest('hex'));
    // Nor an HMAC keyed with the master key itself: the key is derived.
    expect(h).not.toBe(createHmac('sha256', KEY_1).update('cha-1\x00123456').digest('hex'));
  });

  it('gives the same value a different hash under a different challenge ID', () => {
    expect(hasher.hash('cha-1', '123456')).not.toBe(hasher.hash('cha-2', '123456'));
  });

  it('separates challenge ID and value unambiguously', () => {
    expect(hasher.hash('cha-1', '23456')).not.toBe(hasher.hash('cha-12', '3456'));
  });

  it('derives a different key from a different master key', () => {
    expect(createValueHasher(KEY_2).hash('cha-1', '123456')).not.toBe(hasher.hash('cha-1', '123456'));
    expect(createValueHasher(Buffer.from(KEY_1)).hash('cha-1', '123456')).toBe(hasher.hash('cha-1', '123456'));
  });

  it('matches the right value for the right challenge only', () => {
    const stored = hasher.hash('cha-1', '123456');
    expect(hasher.matches('cha-1', '123456', stored)).toBe(true);
    expect(hasher.matches('cha-1', '123457', stored)).toBe(false);
    expect(hasher.matches('cha-1', '', stored)).toBe(false);
    expect(hasher.matches('cha-2', '123456', stored)).toBe(false);
    expect(createValueHasher(KEY_2).matches('cha-1', '123456', stored)).toBe(false);
  });

  it('does not match (nor throw on) a stored hash of the wrong shape', () => {
    const stored = hasher.hash('cha-1', '123456');
    for (const bad of ['', stored.slice(0, 62), `${stored}00`, 'zz'.repeat(32), stored.toUpperCase().replace(/[0-9A-F]/g, 'G')]) {
      expect(hasher.matches('cha-1', '123456', bad)).toBe(false);
    }
  });

  it('matches regardless of the hex case of the stored hash', () => {
    const stored = hasher.hash('cha-1', '123456');
    expect(hasher.matches('cha-1', '123456', stored.toUpperCase())).toBe(true);
  });
});
