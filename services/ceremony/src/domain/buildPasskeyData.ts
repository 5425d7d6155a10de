import type { CredentialRecord } from '../store/credentials.js';
import type { SessionRecord } from '../store/sessions.js';
import { ceremonyTypeOf } from './ceremonyRules.js';
import type { CeremonyDomainDeps, PasskeyData } from './deps.js';

/** passkeyData of a finish: the passkey, its user, the answered ceremony and how it ran. */
export function buildPasskeyData(
  deps: Pick<CeremonyDomainDeps, 'aaguids'>,
  credential: CredentialRecord,
  session: SessionRecord,
  attachment: string | null,
  transports: readonly string[],
): PasskeyData {
  return {
    id: credential._id,
    userId: credential.userId,
    username: credential.username,
    challengeId: session._id,
    ceremonyType: ceremonyTypeOf(attachment, transports),
    aaguidDetails: deps.aaguids.details(credential.aaguid),
  };
}
