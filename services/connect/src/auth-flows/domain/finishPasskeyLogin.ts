/** The passkey-verify block's finish: the ceremony verifies the assertion and the process completes. */
import { notFound } from '../../../../runtime/errors.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { loadAuthProcess } from './loadAuthProcess.js';
import { describeAuthClient } from './processClient.js';
import type { Block } from './blockTypes.js';
import { completeProcess } from './completeProcess.js';

export async function finishPasskeyLogin(deps: AuthFlowDeps, call: FlowCall, signedChallenge: string): Promise<Block> {
  const process = await loadAuthProcess(deps, call, ['passkey-verify']);
  const r = await deps.ceremony.finishLogin(call, {
    userId: process.userId!,
    assertionResponse: signedChallenge,
    processId: process._id,
    trackingId: call.requestId,
    client: describeAuthClient(process, call),
  });
  // The ceremony's own answer to a passkey that is not (any more) the user's, as before the port said it as a value.
  if (r.passkeyDeleted) throw notFound('credential_not_found', "the response's credential is not a passkey of this user");
  return completeProcess(deps, call, process, ['passkey-verify'], { passkeyUsed: true, ceremonyType: r.passkeyData.ceremonyType || 'local' });
}
