/**
 * A user's passkeys as the ceremony lists them, read in full and shaped as the connect manage list
 * (F10) and /v2/me/passkeys show them.
 */
import type { Passkey, PasskeyCeremonies, ServiceCall } from './passkeyCeremonies.js';

export interface ManagedPasskey {
  credential: Passkey;
  createdMs: number;
  lastUsedMs: number;
}

/** The ceremony lists at most this many per page; a user with more is paged through. */
const PAGE_SIZE = 100;

/** Every passkey of the user, oldest first, page by page. */
export async function allPasskeys(deps: { ceremony: PasskeyCeremonies }, call: ServiceCall, userId: string): Promise<Passkey[]> {
  const out: Passkey[] = [];
  for (let page = 1; ; page++) {
    const r = await deps.ceremony.listPasskeys(call, { userId, page, pageSize: PAGE_SIZE });
    out.push(...r.passkeys);
    if (page >= r.totalPages || r.passkeys.length === 0) return out;
  }
}

/** A passkey as the connect manage list and /v2/me/passkeys show it: with its times in milliseconds. */
export function managedPasskeyOf(credential: Passkey): ManagedPasskey {
  return { credential, createdMs: utcMillis(credential.created), lastUsedMs: utcMillis(credential.lastUsed) };
}

/** The ceremony's timestamps are yyyy-MM-ddTHH:mm:ss in UTC. */
function utcMillis(timestamp: string): number {
  const ms = Date.parse(`${timestamp}Z`);
  return Number.isNaN(ms) ? 0 : ms;
}
