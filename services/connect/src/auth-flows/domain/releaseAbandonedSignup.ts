/**
 * An identifier value held by a sign-up that was abandoned is given up, as initSignup does for a
 * new sign-up: the holder is a pending user (a sign-up completes by activating its user) created
 * longer ago than a process lives, so no process can complete it any more. Used where a value is
 * claimed outside a new sign-up: a sign-up correcting its identifier, a signed-in user adding or
 * changing one.
 */
import { deleteUser } from '../../users/domain/deleteUser.js';
import type { UserDeps } from '../../users/domain/userDeps.js';
import type { IdentifierType } from '../../users/store/identifiers.js';
import { AUTH_PROCESS_LIFETIME_SECONDS } from './authDeps.js';

/** True when the value is free now (its abandoned holder was deleted, or nobody holds it any more). */
export async function releaseAbandonedSignup(deps: UserDeps, projectId: string, type: IdentifierType, value: string): Promise<boolean> {
  const taken = await deps.identifiers.findByValue(projectId, type, value);
  if (!taken) return true;
  const owner = await deps.users.find(projectId, taken.userId);
  if (!owner || owner.status !== 'pending') return false;
  // A sign-up still running (in another tab) keeps it.
  if (owner.createdAt.getTime() > deps.now().getTime() - AUTH_PROCESS_LIFETIME_SECONDS * 1000) return false;
  await deleteUser(deps, projectId, owner._id);
  return true;
}
