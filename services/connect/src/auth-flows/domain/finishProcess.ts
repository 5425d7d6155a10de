/**
 * process/complete. Completing is possible once the user is proven: after "passkey-appended", or
 * from the append block when the user chooses not to add one.
 */
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { loadAuthProcess } from './loadAuthProcess.js';
import type { Block } from './blockTypes.js';
import { completeProcess } from './completeProcess.js';

export async function finishProcess(deps: AuthFlowDeps, call: FlowCall): Promise<Block> {
  const process = await loadAuthProcess(deps, call, ['passkey-appended', 'passkey-append']);
  return completeProcess(deps, call, process, ['passkey-appended', 'passkey-append']);
}
