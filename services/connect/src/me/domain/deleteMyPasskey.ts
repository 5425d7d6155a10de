/**
 * DELETE /v2/me/passkeys/{credentialID}: deletes one of the signed-in user's passkeys. The
 * ceremony deletes by user and passkey ID together, so another user's passkey is its 404
 * credential_not_found, exactly like an unknown one (nobody learns which IDs exist).
 */
import type { MeCall, MeDeps } from './meDeps.js';
import { signedInUser } from './signedInUser.js';

export async function deleteMyPasskey(deps: MeDeps, call: MeCall, passkeyId: string): Promise<void> {
  const user = await signedInUser(deps, call);
  await deps.ceremony.deletePasskey(call, { userId: user._id, passkeyId });
}
