/**
 * DELETE /v2/me: the signed-in user deletes their own account. The users feature's deleteUser
 * removes the identifiers, then the user, then asks the challenge and ceremony services to drop the
 * user's challenges and passkeys (the same path as the backend API's user delete). The calling
 * session is revoked as well, so its refresh token stops at once; any other session of the user
 * stops at its next use, since /v2/me/* and /v2/me/refresh both refuse a user that no longer exists.
 * A pending passkey append or identifier verification of the user (F3, F11) is left to expire: its
 * finish needs the signed-in user, so it can no longer complete. Connect tokens name the user in the
 * application's terms, not ours, and stay the application's to manage.
 */
import { deleteUser } from '../../users/index.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { signedInUser } from './signedInUser.js';

export async function deleteMyAccount(deps: MeDeps, call: MeCall): Promise<void> {
  const user = await signedInUser(deps, call, { recentProof: true });
  await deleteUser(deps, call.projectId, user._id);
  await deps.sessions.revokeSession(call.projectId, call.sessionId, 'user_unavailable', deps.now());
}
