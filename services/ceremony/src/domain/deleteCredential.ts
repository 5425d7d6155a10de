import { notFound } from '../../../runtime/errors.js';
import type { CeremonyDomainDeps } from './deps.js';
import { recordEvent } from './recordEvent.js';

/**
 * Deletes one passkey of a user in this project; not_found `credential_not_found` if the user has
 * no passkey with that ID here. Deletion is immediate: a later mediation with it answers
 * credentialDeleted, a later login credential_not_found.
 */
export async function deleteCredential(deps: Pick<CeremonyDomainDeps, 'credentials' | 'insights' | 'logger' | 'now'>, projectId: string, userId: string, id: string): Promise<void> {
  if (!(await deps.credentials.deleteOne(projectId, userId, id))) {
    throw notFound('credential_not_found', `user ${userId} has no passkey ${id}`);
  }
  await recordEvent(deps, { projectId, userId, type: 'credential-deleted', credentialId: id, at: deps.now() });
}
