import { notFound } from '../../../runtime/errors.js';
import { passkeyDeletedEvent } from './buildPasskeyEvents.js';
import type { CeremonyDomainDeps } from './deps.js';
import { recordEvent } from './recordEvent.js';

/**
 * Deletes one passkey of a user in this project (the backend API's DELETE, and the user's own
 * through /v2/me, which connect relays here); not_found `credential_not_found` if the user has no
 * passkey with that ID here. Deletion is immediate: a later mediation with it answers
 * credentialDeleted, a later login credential_not_found.
 *
 * passkey.deleted is written around the delete (the passkey is read first: its credential ID goes
 * into the event that must be durable before the delete). Of two concurrent deletes one deletes;
 * the other's change fails, so its event is removed and only one passkey.deleted is sent. The
 * passkeys removed with their user (deleteUserCredentials) send none: user.deleted says it.
 */
export async function deleteCredential(deps: Pick<CeremonyDomainDeps, 'credentials' | 'insights' | 'events' | 'logger' | 'now'>, projectId: string, userId: string, id: string): Promise<void> {
  const gone = () => notFound('credential_not_found', `user ${userId} has no passkey ${id}`);
  const passkey = await deps.credentials.findForUser(projectId, userId, id);
  if (!passkey) throw gone();
  await deps.events.around(passkeyDeletedEvent(projectId, passkey), async () => {
    if (!(await deps.credentials.deleteOne(projectId, userId, id))) throw gone();
  });
  await recordEvent(deps, { projectId, userId, type: 'credential-deleted', credentialId: id, at: deps.now() });
}
