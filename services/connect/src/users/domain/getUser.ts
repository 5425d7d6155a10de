import { notFound } from '../../../../runtime/errors.js';
import type { UserRecord } from '../store/users.js';
import type { UserDeps } from './userDeps.js';

/** The user, or not_found `user_not_found`; a user of another project is not found either. */
export async function getUser(deps: Pick<UserDeps, 'users'>, projectId: string, userId: string): Promise<UserRecord> {
  const user = await deps.users.find(projectId, userId);
  if (!user) throw notFound('user_not_found', `user ${userId} does not exist`);
  return user;
}
