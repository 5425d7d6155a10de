/** The passkey-append block's finish: the ceremony verifies the new passkey and the process moves to passkey-appended. */
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { advanceProcess } from './advanceProcess.js';
import { loadAuthProcess } from './loadAuthProcess.js';
import { describeAuthClient } from './processClient.js';
import { buildPasskeyAppendedBlock } from './buildPasskeyAppendedBlock.js';
import type { Block } from './blockTypes.js';

export async function finishPasskeyAppend(deps: AuthFlowDeps, call: FlowCall, signedChallenge: string): Promise<Block> {
  const process = await loadAuthProcess(deps, call, ['passkey-append']);
  const r = await deps.ceremony.finishAppend(call, {
    userId: process.userId!,
    processId: process._id,
    attestationResponse: signedChallenge,
    trackingId: call.requestId,
    client: describeAuthClient(process, call),
  });
  const moved = await advanceProcess(deps, process, ['passkey-append'], { block: 'passkey-appended', passkeyAppended: true, ceremonyType: r.passkeyData?.ceremonyType || 'local' });
  return buildPasskeyAppendedBlock(moved.authType);
}
