/**
 * block/skip and process/complete. Skipping the passkey append completes the process when it has
 * proven the user already (a code, or the login's passkey); before that, skipping leads to the
 * code instead. Completing is possible once the user is proven: after "passkey-appended", or
 * from the append block when the user chooses not to add one.
 */
import { failedPrecondition } from '../../../../runtime/errors.js';
import type { FlowCall } from '../../connect-flows/domain/flowDeps.js';
import type { AuthFlowDeps } from './authDeps.js';
import { authProcessOf } from './loadAuthProcess.js';
import type { Block } from './blocks.js';
import { completeProcess, readyToComplete } from './completeProcess.js';
import { defaultMethod, sendCode } from './sendCode.js';

export async function skipBlock(deps: AuthFlowDeps, call: FlowCall): Promise<Block> {
  const process = await authProcessOf(deps, call, ['passkey-append']);
  if (readyToComplete(process)) return completeProcess(deps, call, process, ['passkey-append']);
  const method = defaultMethod(process);
  if (!method) throw failedPrecondition('cannot_skip', 'a passkey is the only way to finish this sign-up (the identifier is a username)');
  return sendCode(deps, call, process, ['passkey-append'], method);
}

export async function processComplete(deps: AuthFlowDeps, call: FlowCall): Promise<Block> {
  const process = await authProcessOf(deps, call, ['passkey-appended', 'passkey-append']);
  return completeProcess(deps, call, process, ['passkey-appended', 'passkey-append']);
}
