/**
 * F9: verifies the assertion with the ceremony service (conditional UI: the challenge of F5,
 * otherwise the options of F8) and logs the user in: a session token, signedPasskeyData for the
 * application's server, and the passkeyOperation. A passkey that no longer exists (deleted
 * after the browser offered it) is 404 credential_deleted; every other failed verification is
 * the ceremony's 4xx.
 *
 * Why 404 and not a 200 with fallbackOperationError: web-core 2.x (what @corbado/connect-react
 * 0.2.x uses) turns a 404 of login/finish into ConnectConditionalUIPasskeyDeleted, and the login
 * component falls back to the application's login with a message; a 200 it takes for a login
 * and reads passkeyOperation, which a fallback has none of, so it throws and the component hangs.
 * web-core 3.x returns any 4xx of login/finish to its caller as an error, so it handles the 404
 * as well. The answer is the same with and without conditional UI.
 *
 * One way, each fact read once: the ceremony only verifies (it is never asked to sign, so it never
 * calls back into connect); connect reads the project, the user and the user's identifiers once,
 * opens the project's signing key once, and signs both the session token and signedPasskeyData
 * with it. signedPasskeyData has exactly the claims of the SignPasskeyData RPC (passkeyDataClaims).
 */
import { failedPrecondition, notFound, permissionDenied } from '../../../../runtime/errors.js';
import { getProject, MAX_PASSKEY_DATA_LIFETIME_SECONDS, openProjectSigner, passkeyDataClaims } from '../../projects/index.js';
import { chooseVouchedUsername, pickLoginIdentifier } from '../../users/index.js';
import type { FinishedLoginCeremony } from '../../shared/domain/passkeyCeremonies.js';
import { findActiveProcess } from './findActiveProcess.js';
import { describeClient, type FlowCall } from '../../shared/domain/flowCall.js';
import type { ConnectFlowDeps } from './flowDeps.js';
import { issueSession } from './issueSession.js';
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
}

export async function finishLogin(deps: ConnectFlowDeps, call: FlowCall, input: LoginFinishInput): Promise<FinishedLogin> {
  const process = await findActiveProcess(deps, call, 'login');
  if (!process.allowed) throw permissionDenied('login_not_allowed', 'passkey login is not offered to this client');
  const client = describeClient(process, call);

  let verified: FinishedLoginCeremony;
  if (input.isConditionalUI) {
    verified = await deps.ceremony.finishMediation(call, { assertionResponse: input.assertionResponse, client, processId: process._id, trackingId: call.requestId });
  } else {
    if (!process.userId || !process.identifier) throw failedPrecondition('login_not_started', 'call /v2/connect/login/start before finishing a login');
    verified = await deps.ceremony.finishLogin(call, { userId: process.userId, assertionResponse: input.assertionResponse, processId: process._id, trackingId: call.requestId, client });
  }
  if (verified.passkeyDeleted) throw notFound('credential_deleted', 'the passkey used no longer exists; use the application login');
  const data = verified.passkeyData;

  // Read once, used by everything below: the session, its token's claims, signedPasskeyData's username, the operation.
  const [project, user, identifiers] = await Promise.all([getProject(deps, call.projectId), deps.users.find(call.projectId, data.userId), deps.identifiers.listForUser(call.projectId, data.userId)]);
  if (!user) throw failedPrecondition('user_not_found', 'the passkey belongs to a user that no longer exists');
  const signer = openProjectSigner(deps, project);
  // A login started with an identifier found its user by a claimed one (findUserByIdentifier); a
  // conditional-UI login names the user by a claimed identifier too, never by an assertion.
  const identifier = process.identifier && !input.isConditionalUI ? process.identifier : pickLoginIdentifier(identifiers, data.username, { claimedOnly: true });
  // Signed before the session is written: a failure leaves no session behind.
  const signedPasskeyData = await signer.sign(passkeyDataClaims(data, chooseVouchedUsername(user, identifiers, data.username)), { expiresIn: MAX_PASSKEY_DATA_LIFETIME_SECONDS });
  const session = await issueSession(deps, call.projectId, { id: user._id, name: user.fullName ?? identifier?.value ?? '' }, { signer, user, identifiers });
  const operation = identifier ? describePasskeyOperation('verify', identifier, data) : undefined;

  await deps.processes.update(call.projectId, process._id, { userId: user._id, finished: { operation: 'login', conditional: input.isConditionalUI, ...(input.loadedMs !== undefined ? { loadedMs: input.loadedMs } : {}), at: deps.now() } }, deps.now());
  if (operation) await rememberOperation(deps, call.projectId, process.clientEnvHandle, operation);
  return { session, signedPasskeyData, ...(operation ? { operation } : {}) };
}
