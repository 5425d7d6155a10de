/** Which of a project's ES256 signing keys tokens may still be verified with (and so are published). */
import type { SigningKeyRecord } from '../store/projects.js';

/** The keys tokens may still be verified with at `now`: every key not yet retired. */
export function filterLiveSigningKeys(keys: readonly SigningKeyRecord[], now: Date): SigningKeyRecord[] {
  return keys.filter((k) => !k.retiresAt || k.retiresAt.getTime() > now.getTime());
}
