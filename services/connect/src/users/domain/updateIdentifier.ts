import { alreadyExists, notFound } from '../../../../runtime/errors.js';
import type { IdentifierRecord } from '../store/identifiers.js';
import { checkIdentifierStatus } from './identifierRules.js';
import type { UserDeps } from './userDeps.js';

/** Sets an identifier's status (the application vouching for it); not_found unless the identifier belongs to that user in that project. */
export async function updateIdentifier(
  deps: Pick<UserDeps, 'identifiers' | 'now'>,
  input: { projectId: string; userId: string; identifierId: string; status: string },
): Promise<IdentifierRecord> {
  const status = checkIdentifierStatus(input.status);
  // The application sets the status: from now on it vouches for the value, as for one it created.
  const updated = await deps.identifiers.updateStatus(input.projectId, input.userId, input.identifierId, { status, claimed: true, source: 'application' }, deps.now());
  if (updated === 'duplicate') throw alreadyExists('identifier_already_exists', 'another user of the project already holds this identifier value');
  if (!updated) throw notFound('identifier_not_found', `identifier ${input.identifierId} of user ${input.userId} does not exist`);
  // Vouched for now: unproven assertions of the same value by others lose it (see createIdentifier).
  await deps.identifiers.deleteUnclaimedByValue(input.projectId, updated.type, updated.value);
  return updated;
}
