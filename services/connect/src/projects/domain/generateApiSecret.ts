/** Backend API secrets: 256-bit random strings, stored only as their hash (hashApiSecret.ts). */
import { randomBytes } from 'node:crypto';

/** The published SDKs refuse secrets without this prefix. */
export const API_SECRET_PREFIX = 'corbado1_';

/** A fresh secret: the prefix and base64url of 32 random bytes (43 characters). */
export function generateApiSecret(): string {
  return API_SECRET_PREFIX + randomBytes(32).toString('base64url');
}
