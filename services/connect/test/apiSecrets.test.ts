import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';

// Wraps the real timingSafeEqual so the test can see the comparison goes through it.
const crypto = vi.hoisted(() => ({ timingSafeEqualCalls: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return {
    ...real,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      crypto.timingSafeEqualCalls++;
      return real.timingSafeEqual(a, b);
    },
  };
});

const { API_SECRET_PREFIX, generateApiSecret, hashApiSecret, matchApiSecret } = await import('../src/projects/domain/apiSecrets.js');

describe('API secrets', () => {
  it('look like corbado1_ and base64url of 32 random bytes', () => {
    const a = generateApiSecret();
    const b = generateApiSecret();
    expect(a).toMatch(/^corbado1_[A-Za-z0-9_-]{43}$/);
    expect(a.startsWith(API_SECRET_PREFIX)).toBe(true);
    expect(Buffer.from(a.slice(API_SECRET_PREFIX.length), 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('are stored as SHA-256 hex', () => {
    const secret = generateApiSecret();
    expect(hashApiSecret(secret)).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(hashApiSecret(secret)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('match one of several stored hashes, comparing every hash in constant time', () => {
    const [s1, s2, s3] = [generateApiSecret(), generateApiSecret(), generateApiSecret()];
    const stored = [hashApiSecret(s1), hashApiSecret(s2)];
    crypto.timingSafeEqualCalls = 0;
    expect(matchApiSecret(s1, stored)).toBe(true);
    // No early exit: both stored hashes were compared although the first matched.
    expect(crypto.timingSafeEqualCalls).toBe(2);
    expect(matchApiSecret(s2, stored)).toBe(true);
    expect(matchApiSecret(s3, stored)).toBe(false);
    expect(matchApiSecret(s1, [])).toBe(false);
  });

  it('reject near misses and tolerate malformed stored hashes', () => {
    const s = generateApiSecret();
    expect(matchApiSecret(`${s} `, [hashApiSecret(s)])).toBe(false);
    expect(matchApiSecret(s.toUpperCase(), [hashApiSecret(s)])).toBe(false);
    expect(matchApiSecret(s, ['abcd', hashApiSecret(s)])).toBe(true);
  });
});
