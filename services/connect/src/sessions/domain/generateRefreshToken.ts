/** Refresh tokens: opaque random strings, recognizable by their prefix, stored only as a hash (hashRefreshToken.ts). */
import { randomBytes } from 'node:crypto';

/** "rt_" and 32 random bytes as base64url (43 characters); the gateway recognizes this shape. */
export function generateRefreshToken(): string {
  return `rt_${randomBytes(32).toString('base64url')}`;
}
