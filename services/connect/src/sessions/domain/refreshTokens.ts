/** Refresh tokens (generateRefreshToken.ts) are stored only as a hash. */
import { createHash } from 'node:crypto';

/** Hex SHA-256: the token has 256 bits of entropy, so an unsalted fast hash is enough (nothing to brute-force). */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
