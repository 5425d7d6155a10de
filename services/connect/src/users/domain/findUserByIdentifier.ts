import type { UserRecord } from '../store/users.js';
import type { UserDeps } from './userDeps.js';
import type { LoginIdentifier } from './classifyIdentifier.js';

/**
 * The project's user an identifier belongs to, or null (unknown identifier, or a dangling one).
 * Only a claimed identifier resolves (the store's findByValue): one the application vouched for or
 * the user proved. A value a self sign-up merely asserted names nobody.
 */
export async function findUserByIdentifier(deps: Pick<UserDeps, 'identifiers' | 'users'>, projectId: string, identifier: LoginIdentifier): Promise<UserRecord | null> {
  const found = await deps.identifiers.findByValue(projectId, identifier.type, identifier.value);
  if (!found) return null;
  return deps.users.find(projectId, found.userId);
}
