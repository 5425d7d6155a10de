import type { ChangeConfirmer } from '../../../runtime/outbox.js';
import type { CredentialStore } from '../store/credentials.js';

/**
 * Whether the change of a passkey event left prepared in the ceremony's outbox happened (its writer
 * died between the insert and marking it ready): passkey.created if that passkey is stored.
 */
export function confirmPasskeyEvent(credentials: Pick<CredentialStore, 'findByCredentialId'>): ChangeConfirmer {
  return async (event) => {
    if (event.type !== 'passkey.created') return false;
    const { credentialID, passkeyID } = event.data;
    if (typeof credentialID !== 'string' || typeof passkeyID !== 'string') return false;
    return (await credentials.findByCredentialId(event.projectId, credentialID))?._id === passkeyID;
  };
}
