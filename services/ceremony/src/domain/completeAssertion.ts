import type { CredentialRecord } from '../store/credentials.js';
import type { SessionRecord } from '../store/sessions.js';
import { buildPasskeyData } from './buildPasskeyData.js';
import { loginCompletedEvent } from './buildPasskeyEvents.js';
import type { CeremonyDomainDeps, PasskeyData } from './deps.js';
import type { CeremonyEventType, ClientContext } from './insights/types.js';
import { recordEvent } from './recordEvent.js';

export interface CompleteAssertionInput {
  projectId: string;
  userId: string;
  eventType: Extract<CeremonyEventType, 'login-succeeded' | 'mediation-succeeded'>;
  processId: string;
  trackingId?: string;
  client: ClientContext;
  /** The credential as saved after the verified assertion. */
  saved: CredentialRecord;
  session: SessionRecord;
  attachment: 'platform' | 'cross-platform' | null;
  signPasskeyData: boolean;
}

/**
 * The shared end of B5 and B7, reached only with an assertion verified and saved (every login,
 * the frontend's included, ends here): record the success, build passkeyData and sign it when
 * asked. passkey-login.completed is written to the outbox (one write, after the save and before
 * the answer): when that fails, the login is not answered as done.
 */
export async function completeAssertion(
  deps: Pick<CeremonyDomainDeps, 'insights' | 'logger' | 'outcomes' | 'aaguids' | 'signer' | 'events' | 'now'>,
  input: CompleteAssertionInput,
): Promise<{ passkeyData: PasskeyData; signedPasskeyData?: string }> {
  await Promise.all([
    recordEvent(deps, {
      projectId: input.projectId,
      userId: input.userId,
      type: input.eventType,
      processId: input.processId,
      trackingId: input.trackingId,
      credentialId: input.saved._id,
      client: input.client,
      at: deps.now(),
    }),
    deps.events.record(loginCompletedEvent(input.projectId, input.saved, input.client)),
  ]);
  const passkeyData = buildPasskeyData(deps, input.saved, input.session, input.attachment, input.saved.transports);
  if (!input.signPasskeyData) return { passkeyData };
  return { passkeyData, signedPasskeyData: await deps.signer.sign(input.projectId, passkeyData) };
}
