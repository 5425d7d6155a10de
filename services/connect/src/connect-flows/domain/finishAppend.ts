/**
 * F10: verifies the attestation with the ceremony service and consumes the connect token. The
 * token is consumed first, so two finishes (or two tabs) can never store two passkeys with one
 * token; if the ceremony then refuses the response (nothing stored: the user may retry with
 * completionType manual-retry), the token is released again. After an outage the outcome is
 * unknown, and the token stays consumed: failing closed costs one new token.
 */
import { failedPrecondition, invalidArgument } from '../../../../runtime/errors.js';
import { consumeConnectToken, releaseConnectToken } from '../../connect-tokens/index.js';
import { findActiveProcess } from './findActiveProcess.js';
import { describeClient, type FlowCall } from '../../shared/domain/flowCall.js';
import { isClientFailure } from './ceremonyFailures.js';
import type { ConnectFlowDeps } from './flowDeps.js';
import { describePasskeyOperation, type PasskeyOperationResult } from './describePasskeyOperation.js';
import { rememberOperation } from './rememberOperation.js';
import { APPEND_FLOWS } from './startAppend.js';

export interface AppendFinishInput {
  attestationResponse: string;
  /** "" or absent: the page did not say (web-core 2.x never does); recorded as DEFAULT_COMPLETION_TYPE. */
  completionType?: string;
  /** Free-form JSON from the page, recorded with the process. */
  customData?: Record<string, unknown>;
}

/**
 * What an append finished without a completionType was. web-core 2.x (used by
 * @corbado/connect-react 0.2.x) sends none, and in that SDK every passkey is created from the
 * user's click on an "Activate passkey" button (the append screens and the passkey list): it has
 * no automatic or conditional (autofill) creation, which web-core 3.x names explicitly as "auto"
 * and "conditional", and it does not tell a retry apart. So the click is a manual completion.
 * Refusing the finish instead would leave the passkey the authenticator has just created orphaned.
 */
export const DEFAULT_COMPLETION_TYPE = 'manual';

/** customData is recorded with the process; bounded so a page cannot store arbitrary amounts. */
const MAX_CUSTOM_DATA_BYTES = 4096;

export async function finishAppend(deps: ConnectFlowDeps, call: FlowCall, input: AppendFinishInput): Promise<PasskeyOperationResult> {
  const process = await findActiveProcess(deps, call, APPEND_FLOWS);
  if (!process.userId || !process.identifier || !process.appendTokenId) throw failedPrecondition('append_not_started', 'call /v2/connect/append/start before finishing an append');
  if (input.customData && Buffer.byteLength(JSON.stringify(input.customData)) > MAX_CUSTOM_DATA_BYTES) {
    throw invalidArgument('validation_error', `customData must be at most ${MAX_CUSTOM_DATA_BYTES} bytes of JSON`, [{ field: 'customData', message: `must be at most ${MAX_CUSTOM_DATA_BYTES} bytes of JSON` }]);
  }
  const tokenRef = { projectId: call.projectId, tokenId: process.appendTokenId, processId: process._id };
  await consumeConnectToken(deps, tokenRef);

  let finished;
  try {
    finished = await deps.ceremony.finishAppend(call, {
      userId: process.userId,
      processId: process._id,
      attestationResponse: input.attestationResponse,
      trackingId: call.requestId,
      client: describeClient(process, call),
    });
  } catch (err) {
    if (isClientFailure(err)) await releaseConnectToken(deps, tokenRef);
    throw err;
  }

  const operation = describePasskeyOperation('append', process.identifier, finished.passkeyData);
  await deps.processes.update(
    call.projectId,
    process._id,
    { finished: { operation: 'append', completionType: input.completionType || DEFAULT_COMPLETION_TYPE, ...(input.customData ? { customData: input.customData } : {}), at: deps.now() } },
    deps.now(),
  );
  await rememberOperation(deps, call.projectId, process.clientEnvHandle, operation);
  return operation;
}
