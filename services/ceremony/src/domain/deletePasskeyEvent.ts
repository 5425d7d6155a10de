import { notFound } from '../../../runtime/errors.js';
import type { CeremonyDomainDeps } from './deps.js';

/**
 * Deletes one of the user's passkey events (backend API PasskeyEventDelete); from the next
 * decision on it no longer counts. not_found `passkey_event_not_found` if the user has no event
 * with that ID in this project (another project's user or event included).
 */
export async function deletePasskeyEvent(deps: Pick<CeremonyDomainDeps, 'passkeyEvents'>, projectId: string, userId: string, id: string): Promise<void> {
  if (!(await deps.passkeyEvents.deletePasskeyEvent(projectId, userId, id))) {
    throw notFound('passkey_event_not_found', `user ${userId} has no passkey event ${id}`);
  }
}
