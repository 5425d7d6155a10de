import { notFound } from '../../../runtime/errors.js';
import { completeAssertion } from './completeAssertion.js';
import { consumeSession } from './consumeSession.js';
import type { CeremonyDomainDeps, PasskeyData } from './deps.js';
import type { ClientContext } from './insights/types.js';
import { parseAssertionResponse } from './parseAssertionResponse.js';
import { failureReason, recordEvent } from './recordEvent.js';
import { verifyAssertion } from './verifyAssertion.js';

export interface FinishLoginInput {
  /** The application's tracking ID of this attempt, kept with the events. */
  trackingId?: string;
  projectId: string;
  userId: string;
  processId: string;
  assertionResponse: string;
  client: ClientContext;
  signPasskeyData: boolean;
}

export interface FinishedLogin {
  passkeyData: PasskeyData;
  /** Present when signPasskeyData was asked for. */
  signedPasskeyData?: string;
}

/**
 * B5: verifies the assertion of a B4 login. Order: parse (400, nothing consumed) → find the
 * credential in this project and check it is the named user's (404 `credential_not_found`
 * otherwise, so a credential of another project or user never authenticates) → consume the
 * session bound to project, user and process → verify (see verifyAssertion) → record the event.
 */
export async function finishLogin(deps: CeremonyDomainDeps, input: FinishLoginInput): Promise<FinishedLogin> {
  const parsed = parseAssertionResponse(input.assertionResponse);
  const project = await deps.projects.get(input.projectId);
  const fail = (reason: string) =>
    recordEvent(deps, { projectId: input.projectId, userId: input.userId, type: 'login-failed', processId: input.processId, trackingId: input.trackingId, reason, client: input.client, at: deps.now() });

  const credential = await deps.credentials.findByCredentialId(input.projectId, parsed.credentialId);
  if (!credential || credential.userId !== input.userId) {
    await fail('credential_not_found');
    throw notFound('credential_not_found', `the response's credential is not a passkey of user ${input.userId}`);
  }
  const session = await consumeSession(deps, {
    projectId: input.projectId,
    operation: 'login',
    challenge: parsed.clientData.challenge,
    userId: input.userId,
    processIds: [input.processId],
  }).catch(async (err: unknown) => {
    await fail(failureReason(err));
    throw err;
  });

  let saved;
  try {
    saved = await verifyAssertion(deps, { parsed, credential, session, origins: project.origins, processId: input.processId, trackingId: input.trackingId, client: input.client });
  } catch (err) {
    // A counter regression was recorded as clone-detected already.
    if (failureReason(err) !== 'counter_regression') await fail(failureReason(err));
    throw err;
  }
  return completeAssertion(deps, {
    projectId: input.projectId,
    userId: input.userId,
    eventType: 'login-succeeded',
    processId: input.processId,
    trackingId: input.trackingId,
    client: input.client,
    saved,
    session,
    attachment: parsed.attachment,
    signPasskeyData: input.signPasskeyData === true,
  });
}
