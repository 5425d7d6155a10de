/**
 * The key of a client environment (one browser profile on one device). The client's own
 * clientEnvHandle is the best identity; without one, a hash of what the client sends about itself
 * keeps the same browser on the same key across requests.
 */
import { createHash } from 'node:crypto';
import type { ClientContext } from './types.js';

/** Longest handle stored as is; longer ones are hashed so keys stay small enough to index. */
export const MAX_HANDLE_LENGTH = 128;

export function clientEnvKey(client: Pick<ClientContext, 'clientEnvHandle' | 'userAgent' | 'javascriptFingerprint'>): string {
  const handle = client.clientEnvHandle?.trim();
  if (handle) {
    if (handle.length <= MAX_HANDLE_LENGTH) return handle;
    return `handle-${sha256(handle)}`;
  }
  // JSON keeps the two parts apart ("a"+"bc" and "ab"+"c" must not collide).
  return `derived-${sha256(JSON.stringify([client.userAgent ?? '', client.javascriptFingerprint ?? '']))}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}
