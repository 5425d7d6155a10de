import type { ChangeConfirmer } from '../../../runtime/outbox.js';
import type { CredentialStore } from '../store/credentials.js';

/**
 * Whether the change of a passkey event left prepared in the ceremony's outbox happened (its writer
 * died between the insert and marking it ready): passkey.created if that passkey is stored,
 * passkey.deleted if it is not (any more), passkey.clone-detected if it is flagged.
 * passkey-login.completed and passkey-login.failed are written ready in one write (EventOutbox.record)
 * and so are never left prepared; nothing stored would tell one login from another anyway: false.
 */
export function confirmPasskeyEvent(credentials: Pick<CredentialStore, 'findByCredentialId'>): ChangeConfirmer {
  return async (event) => {
    const { credentialID, passkeyID } = event.data;
    if (typeof credentialID !== 'string' || typeof passkeyID !== 'string') return false;
    const found = async () => {
      const stored = await credentials.findByCredentialId(event.projectId, credentialID);
      // The credential ID may have been registered again since, as another passkey.
      return stored?._id === passkeyID ? stored : null;
    };
    switch (event.type) {
      case 'passkey.created':
        return (await found()) !== null;
      case 'passkey.deleted':
        return (await found()) === null;
      case 'passkey.clone-detected':
        return (await found())?.cloneDetectedAt !== undefined;
      default:
        return false;
    }
  };
}
