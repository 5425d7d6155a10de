/**
 * Refresh tokens: 256 random bits (`rt_` and base64url), stored only as their SHA-256 (a random
 * value of that size needs no slow hash).
 */
import { createHash, randomBytes } from 'node:crypto';

/** "rt_" and 32 random bytes as base64url (43 characters); the gateway recognizes this shape. */
export function generateRefreshToken(): string {
  return `rt_${randomBytes(32).toString('base64url')}`;
}

/** Hex SHA-256: the token has 256 bits of entropy, so an unsalted fast hash is enough (nothing to brute-force). */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
