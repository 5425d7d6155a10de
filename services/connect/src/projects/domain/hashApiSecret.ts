/**
 * Backend API secrets (generateApiSecret.ts) are 256-bit random strings, so a plain SHA-256 is
 * enough at rest (nothing to brute-force, unlike passwords or six-digit codes).
 */
import { createHash } from 'node:crypto';

/** SHA-256 of the secret as hex, the only form that is stored. */
export function hashApiSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
