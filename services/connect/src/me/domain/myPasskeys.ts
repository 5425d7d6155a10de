/** The signed-in user's passkeys (/v2/me/passkeys), as the connect manage list shows them. */
import { allPasskeys, type ManagedPasskey, managedPasskeyOf } from '../../shared/domain/userPasskeys.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { signedInUser } from './signedInUser.js';

/** GET /v2/me/passkeys: every passkey of the signed-in user, oldest first, as the connect manage list shows them. */
export async function listMyPasskeys(deps: MeDeps, call: MeCall): Promise<ManagedPasskey[]> {
  const user = await signedInUser(deps, call);
  const credentials = await allPasskeys(deps, call, user._id);
  return credentials.map(managedPasskeyOf);
}

/**
 * DELETE /v2/me/passkeys/{credentialID}: deletes one of the signed-in user's passkeys. The
 * ceremony deletes by user and passkey ID together, so another user's passkey is its 404
 * credential_not_found, exactly like an unknown one (nobody learns which IDs exist).
 */
export async function deleteMyPasskey(deps: MeDeps, call: MeCall, passkeyId: string): Promise<void> {
  const user = await signedInUser(deps, call);
  await deps.ceremony.deletePasskey(call, { userId: user._id, passkeyId });
}
