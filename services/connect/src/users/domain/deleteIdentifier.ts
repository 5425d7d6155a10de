import { notFound } from '../../../../runtime/errors.js';
import type { UserDeps } from './userDeps.js';

/** Deletes an identifier; not_found unless it belongs to that user in that project. */
export async function deleteIdentifier(deps: Pick<UserDeps, 'identifiers'>, input: { projectId: string; userId: string; identifierId: string }): Promise<void> {
  if (!(await deps.identifiers.delete(input.projectId, input.userId, input.identifierId))) {
    throw notFound('identifier_not_found', `identifier ${input.identifierId} of user ${input.userId} does not exist`);
  }
}
