/**
 * Backend API secrets: 256-bit random strings, so a plain SHA-256 is enough at rest (nothing to
 * brute-force, unlike passwords or six-digit codes); only the hash is stored.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The published SDKs refuse secrets without this prefix. */
export const API_SECRET_PREFIX = 'corbado1_';

/** A fresh secret: the prefix and base64url of 32 random bytes (43 characters). */
export function generateApiSecret(): string {
  return API_SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** SHA-256 of the secret as hex, the only form that is stored. */
export function hashApiSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * True if the secret hashes to one of the stored hashes. Every hash is compared (no early exit),
 * and with timingSafeEqual, so neither which secret matched nor how much of it is observable.
 */
export function matchApiSecret(secret: string, storedHashes: readonly string[]): boolean {
  const given = Buffer.from(hashApiSecret(secret), 'hex');
  let matched = false;
  for (const stored of storedHashes) {
    const candidate = Buffer.from(stored, 'hex');
    // A malformed stored hash has another length; timingSafeEqual would throw on it.
    if (candidate.length === given.length && timingSafeEqual(candidate, given)) matched = true;
  }
  return matched;
}
