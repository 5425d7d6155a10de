/**
 * Release only what is abandoned: a user the self-service sign-up created (origin "signup"), whose
 * sign-up never completed (the user is still pending) and whose process expired (a process lives
 * AUTH_PROCESS_LIFETIME_SECONDS from before the user was created, so none can complete it any
 * more), holding no proven identifier and no passkey, gives up the values it only asserted: its
 * unclaimed identifiers are removed. The user itself stays (pending, with nothing that logs in):
 * removing what it asserted is all that others need, and a user record is never deleted on
 * someone else's behalf.
 *
 * Users the application created (backend API, connect tokens; origin "application" or none) are
 * never released, whatever their status or age. Since an unclaimed value blocks nobody, this runs
 * only where a proof took a value from unproven holders (claimProvenIdentifier.ts), to tidy away
 * the rest of what an abandoned sign-up asserted.
 */
import type { ServiceCall } from '../../shared/domain/passkeyCeremonies.js';
import type { AuthFlowDeps } from './authDeps.js';
import { AUTH_PROCESS_LIFETIME_SECONDS } from './authDeps.js';

export type ReleaseDeps = Pick<AuthFlowDeps, 'users' | 'identifiers' | 'ceremony' | 'now'>;

/** True when the user was an abandoned sign-up and its unclaimed identifiers are gone. */
export async function releaseAbandonedSignup(deps: ReleaseDeps, call: ServiceCall, userId: string): Promise<boolean> {
  const user = await deps.users.find(call.projectId, userId);
  // Only what the sign-up created, and only while it never completed (completion activates the user).
  if (!user || user.origin !== 'signup' || user.status !== 'pending') return false;
  // A sign-up still running (in another tab) keeps what it asserted.
  if (user.createdAt.getTime() > deps.now().getTime() - AUTH_PROCESS_LIFETIME_SECONDS * 1000) return false;
  // A proven identifier or a passkey makes it somebody's account, abandoned or not.
  if ((await deps.identifiers.listForUser(call.projectId, userId)).some((i) => i.claimed)) return false;
  if ((await deps.ceremony.listPasskeys(call, { userId, page: 1, pageSize: 1 })).passkeys.length > 0) return false;
  // The filter keeps anything claimed meanwhile; a pending user has no session to add more with.
  await deps.identifiers.deleteUnclaimedForUser(call.projectId, userId);
  return true;
}
