/** The passkey-verify block's finish: the ceremony verifies the assertion and the process completes. */
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
  return completeProcess(deps, call, process, ['passkey-verify'], { passkeyUsed: true, ceremonyType: r.passkeyData?.ceremonyType || 'local' });
}
