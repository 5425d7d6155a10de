/** Which of a project's ES256 signing keys signs new tokens. */
import type { SigningKeyRecord } from '../store/projects.js';

const activationOf = (k: SigningKeyRecord) => (k.activatesAt ?? k.createdAt).getTime();

/**
 * The key new tokens are signed with at `now`: of the keys already active, the one activated last
 * (older ones stay published so their tokens verify). Among equal times the last in the list wins.
 */
export function pickActiveSigningKey(keys: readonly SigningKeyRecord[], now: Date): SigningKeyRecord | null {
  const active = keys.filter((k) => activationOf(k) <= now.getTime());
  let newest: SigningKeyRecord | null = null;
  // No key active yet can only be a clock far behind the one that created the keys: use the first to activate.
  if (!active.length) for (const k of keys) if (!newest || activationOf(k) < activationOf(newest)) newest = k;
  for (const k of active) if (!newest || activationOf(k) >= activationOf(newest)) newest = k;
  return newest;
}
