/**
 * Checks a backend API secret against the stored hashes (hashApiSecret.ts). Comparison is
 * constant-time so response timing says nothing about how much of a hash matched.
 */
import { timingSafeEqual } from 'node:crypto';
import { hashApiSecret } from './hashApiSecret.js';

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
