/**
 * F9: verifies the assertion with the ceremony service (conditional UI: the challenge of F5,
 * otherwise the options of F8) and logs the user in: a session token, signedPasskeyData for the
 * application's server, and the passkeyOperation. A passkey that no longer exists (deleted
 * after the browser offered it) answers 200 with fallbackOperationError, so the page falls back
 * and the browser can forget the passkey; every other failed verification is the ceremony's 4xx.
 */
import { failedPrecondition, permissionDenied } from '../../../../runtime/errors.js';
import type { PasskeyData } from './passkeyCeremonies.js';
import { findActiveProcess } from './findActiveProcess.js';
import { describeClient } from './describeClient.js';
import { isNotFound } from './isNotFound.js';
import type { ConnectFlowDeps, FlowCall } from './flowDeps.js';
import { issueSession } from './issueSession.js';
import { findLoginIdentifierOfUser } from './findLoginIdentifierOfUser.js';
import type { Fallback } from './startLogin.js';
import { describePasskeyOperation, type PasskeyOperationResult } from './describePasskeyOperation.js';
import { rememberOperation } from './rememberOperation.js';

export interface LoginFinishInput {
  isConditionalUI: boolean;
  assertionResponse: string;
  loadedMs?: number;
}

export interface FinishedLogin {
  session: string;
  signedPasskeyData: string;
  operation?: PasskeyOperationResult;
  fallback?: Fallback;
}

const GONE = { code: 'credential_deleted', message: 'the passkey used no longer exists; use the application login' };

export async function finishLogin(deps: ConnectFlowDeps, call: FlowCall, input: LoginFinishInput): Promise<FinishedLogin> {
  const process = await findActiveProcess(deps, call, 'login');
  if (!process.allowed) throw permissionDenied('login_not_allowed', 'passkey login is not offered to this client');
  const client = describeClient(process, call);

  let data: PasskeyData | undefined;
  let signed: string;
  if (input.isConditionalUI) {
    const r = await deps.ceremony.finishMediation(call, { assertionResponse: input.assertionResponse, client, processId: process._id, trackingId: call.requestId, signPasskeyData: true });
    if (r.error?.type === 'credentialDeleted') return { session: '', signedPasskeyData: '', fallback: { initFallback: true, error: GONE } };
    data = r.passkeyData;
    signed = r.signedPasskeyData ?? '';
  } else {
    if (!process.userId || !process.identifier) throw failedPrecondition('login_not_started', 'call /v2/connect/login/start before finishing a login');
    try {
      const r = await deps.ceremony.finishLogin(call, {
        userId: process.userId,
        assertionResponse: input.assertionResponse,
        processId: process._id,
        trackingId: call.requestId,
        client,
        signPasskeyData: true,
      });
      data = r.passkeyData;
      signed = r.signedPasskeyData ?? '';
    } catch (err) {
      if (isNotFound(err)) return { session: '', signedPasskeyData: '', fallback: { initFallback: true, identifier: process.identifier.value, error: GONE } };
      throw err;
    }
  }
  if (!data) throw new Error('the ceremony service answered a login without passkeyData');

  const user = await deps.users.find(call.projectId, data.userId);
  if (!user) throw failedPrecondition('user_not_found', 'the passkey belongs to a user that no longer exists');
  const identifier = process.identifier && !input.isConditionalUI ? process.identifier : await findLoginIdentifierOfUser(deps, call.projectId, user._id, data.username);
  const session = await issueSession(deps, call.projectId, { id: user._id, name: user.fullName ?? identifier?.value ?? '' });
  const operation = identifier ? describePasskeyOperation('verify', identifier, data) : undefined;

  await deps.processes.update(call.projectId, process._id, { userId: user._id, finished: { operation: 'login', conditional: input.isConditionalUI, ...(input.loadedMs !== undefined ? { loadedMs: input.loadedMs } : {}), at: deps.now() } }, deps.now());
  if (operation) await rememberOperation(deps, call.projectId, process.clientEnvHandle, operation);
  return { session, signedPasskeyData: signed, ...(operation ? { operation } : {}) };
}

