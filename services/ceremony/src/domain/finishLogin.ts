import { notFound } from '../../../runtime/errors.js';
import { loginFailedEvent } from './buildPasskeyEvents.js';
import { completeAssertion } from './completeAssertion.js';
import { consumeSession } from './consumeSession.js';
import type { CeremonyDomainDeps, PasskeyData } from './deps.js';
import type { ClientContext } from './insights/types.js';
import { parseAssertionResponse } from './parseAssertionResponse.js';
import { failureReason, recordEvent } from './recordEvent.js';
import { verifyAssertion, type VerifiableCredential } from './verifyAssertion.js';
import type { SessionRecord, SessionScope } from '../store/sessions.js';

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
 * B5: verifies the assertion of a B4 login. Order: parse (400, nothing consumed) → take the
 * session → verify (see verifyAssertion) → record the event.
 *
 * The session is taken in one operation together with what its start saw of the passkey the
 * response names (takeSession). Only when that finds nothing is the passkey read: it must be in
 * this project and the named user's (404 `credential_not_found` otherwise, session untouched, so a
 * credential of another project or user never authenticates), then the session is consumed.
 */
export async function finishLogin(deps: CeremonyDomainDeps, input: FinishLoginInput): Promise<FinishedLogin> {
  const parsed = parseAssertionResponse(input.assertionResponse);
  const project = await deps.projects.get(input.projectId);
  // A refused login: the insights' event (never fails the answer) and passkey-login.failed (durable before the answer).
  const failed = (reason: string, passkeyId?: string) =>
    deps.events.record(loginFailedEvent({ projectId: input.projectId, userId: input.userId, passkeyId, credentialId: parsed.credentialId, reason, client: input.client }));
  const fail: Fail = async (reason, passkeyId) => {
    await Promise.all([
      recordEvent(deps, { projectId: input.projectId, userId: input.userId, type: 'login-failed', processId: input.processId, trackingId: input.trackingId, reason, client: input.client, at: deps.now() }),
      failed(reason, passkeyId),
    ]);
  };
  const scope: SessionScope = {
    projectId: input.projectId,
    operation: 'login',
    challenge: parsed.clientData.challenge,
    userId: input.userId,
    processIds: [input.processId],
  };

  const { session, credential } = (await takeSession(deps, scope, parsed.credentialId, input.userId)) ?? (await takeSessionAfterLookup(deps, scope, parsed.credentialId, input.userId, fail));

  let saved;
  try {
    saved = await verifyAssertion(deps, { parsed, credential, session, origins: project.origins, cloneDetection: project.cloneDetection, processId: input.processId, trackingId: input.trackingId, client: input.client });
  } catch (err) {
    // The insights recorded a counter regression as clone-detected already; the webhook is a failed login either way.
    if (failureReason(err) !== 'counter_regression') await fail(failureReason(err), credential._id);
    else await failed(failureReason(err), credential._id);
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

type Fail = (reason: string, passkeyId?: string) => Promise<void>;

interface TakenSession {
  session: SessionRecord;
  credential: VerifiableCredential;
}

/** The one-operation path: the open session whose start allowed this passkey, consumed. */
async function takeSession(deps: CeremonyDomainDeps, scope: SessionScope, credentialId: string, userId: string): Promise<TakenSession | null> {
  const session = await deps.sessions.consume(scope, deps.now(), credentialId);
  const seen = session?.allowed?.find((a) => a.credentialId === credentialId);
  if (!session || !seen) return null;
  return {
    session,
    credential: { _id: seen.id, projectId: scope.projectId, userId, credentialId: seen.credentialId, publicKey: seen.publicKey, counter: seen.counter, userHandle: seen.userHandle, cloneDetectedAt: seen.cloneDetectedAt },
  };
}

/**
 * Every other case, decided as before the session carried the passkeys: a passkey the start did
 * not list (added since, of someone else, unknown), a session that is gone, expired or was
 * started before sessions carried them.
 */
async function takeSessionAfterLookup(deps: CeremonyDomainDeps, scope: SessionScope, credentialId: string, userId: string, fail: Fail): Promise<TakenSession> {
  const credential = await deps.credentials.findByCredentialId(scope.projectId, credentialId);
  if (!credential || credential.userId !== userId) {
    // Another user's passkey is not named: the event says as little as the answer.
    await fail('credential_not_found');
    throw notFound('credential_not_found', `the response's credential is not a passkey of user ${userId}`);
  }
  const session = await consumeSession(deps, scope).catch(async (err: unknown) => {
    await fail(failureReason(err), credential._id);
    throw err;
  });
  return { session, credential };
}
