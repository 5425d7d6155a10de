/**
 * PATCH /v2/me: the signed-in user sets their full name. It is trimmed; an empty name removes it,
 * which the user-details config allows (fullNameRequired is false: sign-up takes no name either).
 */
import type { MeCall, MeDeps } from './meDeps.js';
import { signedInUser } from './signedInUser.js';

export async function updateMyName(deps: MeDeps, call: MeCall, fullName: string): Promise<void> {
  const user = await signedInUser(deps, call);
  const name = fullName.trim();
  // The user was just found; a concurrent account delete may still win, and then there is nothing to name.
  await deps.users.updateFullName(call.projectId, user._id, name === '' ? undefined : name, deps.now());
}
