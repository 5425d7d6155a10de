import { loginFailedEvent } from './buildPasskeyEvents.js';
import { completeAssertion } from './completeAssertion.js';
import { consumeSession } from './consumeSession.js';
import type { CeremonyDomainDeps, PasskeyData } from './deps.js';
import type { ClientContext } from './insights/types.js';
import { parseAssertionResponse } from './parseAssertionResponse.js';
import { failureReason, recordEvent } from './recordEvent.js';
import { verifyAssertion } from './verifyAssertion.js';

export interface FinishMediationInput {
  /** The application's tracking ID of this attempt, kept with the events. */
  trackingId?: string;
  projectId: string;
  processId: string;
  assertionResponse: string;
  client: ClientContext;
  signPasskeyData: boolean;
}

export type FinishedMediation =
  | { passkeyData: PasskeyData; signedPasskeyData?: string }
  /** The credential is unknown, deleted, or its user is gone: answered with 200 and error.type. */
  | { credentialDeleted: true };

/**
 * B7: verifies a conditional-UI assertion and identifies the user from the credential.
 * Order: parse (400) → consume the mediation session (bound to project, and to the process of B6
 * if B6 named one) → find the credential in this project; unknown or deleted, or its user deleted
 * → `credentialDeleted`, so the frontend can tell the browser (Signal API) → verify as B5.
 * The session is consumed before the credential's lookup is believed, so that credentialDeleted is
 * only ever answered for a live, correctly bound ceremony, never for replays.
 */
export async function finishMediation(deps: CeremonyDomainDeps, input: FinishMediationInput): Promise<FinishedMediation> {
  const parsed = parseAssertionResponse(input.assertionResponse);
  const project = await deps.projects.get(input.projectId);
  // A refused login: the insights' event (never fails the answer) and passkey-login.failed (durable before the answer).
  const failed = (reason: string, passkey?: { userId: string; _id: string }) =>
    deps.events.record(loginFailedEvent({ projectId: input.projectId, userId: passkey?.userId, passkeyId: passkey?._id, credentialId: parsed.credentialId, reason, client: input.client }));
  const fail = async (reason: string, passkey?: { userId: string; _id: string }) => {
    await Promise.all([
      recordEvent(deps, {
        projectId: input.projectId,
        ...(passkey ? { userId: passkey.userId } : {}),
        type: 'mediation-failed',
        processId: input.processId,
        trackingId: input.trackingId,
        reason,
        client: input.client,
        at: deps.now(),
      }),
      failed(reason, passkey),
    ]);
  };

  // The credential is looked up while the session is consumed: neither needs the other's answer,
  // so B7 waits for one store round trip fewer. Its answer is used only once the session is
  // consumed, so the order above holds for every answer; a replay now costs one read more.
  // allSettled, not all: the session's outcome is judged first, whichever of the two settles first.
  const [consumed, lookedUp] = await Promise.allSettled([
    consumeSession(deps, {
      projectId: input.projectId,
      operation: 'mediation',
      challenge: parsed.clientData.challenge,
      // A B6 without processID bound the session to "": any B7 process may finish it.
      processIds: [input.processId, ''],
    }),
    deps.credentials.findByCredentialId(input.projectId, parsed.credentialId),
  ]);
  if (consumed.status === 'rejected') {
    await fail(failureReason(consumed.reason));
    throw consumed.reason;
  }
  const session = consumed.value;
  if (lookedUp.status === 'rejected') throw lookedUp.reason;
  const credential = lookedUp.value;
  if (!credential) {
    await fail('credential-deleted');
    return { credentialDeleted: true };
  }
  // Users are deleted in the connect service first; a passkey whose user is gone is as good as deleted.
  if (!(await deps.users.find(input.projectId, credential.userId))) {
    await fail('user-deleted', credential);
    return { credentialDeleted: true };
  }

  let saved;
  try {
    saved = await verifyAssertion(deps, { parsed, credential, session, origins: project.origins, cloneDetection: project.cloneDetection, processId: input.processId, trackingId: input.trackingId, client: input.client });
  } catch (err) {
    // The insights recorded a counter regression as clone-detected already; the webhook is a failed login either way.
    if (failureReason(err) !== 'counter_regression') await fail(failureReason(err), credential);
    else await failed(failureReason(err), credential);
    throw err;
  }
  return completeAssertion(deps, {
    projectId: input.projectId,
    userId: saved.userId,
    eventType: 'mediation-succeeded',
    processId: input.processId,
    trackingId: input.trackingId,
    client: input.client,
    saved,
    session,
    attachment: parsed.attachment,
    signPasskeyData: input.signPasskeyData === true,
  });
}
