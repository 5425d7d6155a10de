import { notFound } from '../../../../runtime/errors.js';
import type { UserDeps } from './userDeps.js';

/**
 * Deletes a user and what belongs to it. Local data goes first (identifiers and social accounts, then the user, so an
 * interrupted delete never leaves identifiers pointing at no user); then the challenge and ceremony
 * services are asked to drop the user's challenges and passkeys. If that fails the delete still
 * succeeds: challenges expire on their own, and a passkey of a user that no longer exists is
 * refused at login (the ceremony service checks the user), so leftovers cannot be used.
 */
export async function deleteUser(deps: Pick<UserDeps, 'users' | 'identifiers' | 'socialAccounts' | 'cleanup' | 'events' | 'logger'>, projectId: string, userId: string): Promise<void> {
  const user = await deps.users.find(projectId, userId);
  if (!user) throw notFound('user_not_found', `user ${userId} does not exist`);
  await deps.identifiers.deleteForUser(projectId, userId);
  await deps.socialAccounts.deleteForUser(projectId, userId);
  // A concurrent delete may have won; the user is gone either way, which is what was asked. The
  // event is made durable around the delete, before the clean-up elsewhere (which may fail).
  await deps.events.around({ projectId, type: 'user.deleted', data: { userID: userId } }, () => deps.users.delete(projectId, userId));
  try {
    await deps.cleanup.deleteUserData(projectId, userId);
  } catch (err) {
    deps.logger.warn({ err, projectId, userId }, 'could not delete the challenges or passkeys of a deleted user; they cannot be used without the user');
  }
}
