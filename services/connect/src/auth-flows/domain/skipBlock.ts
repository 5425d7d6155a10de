/**
 * block/skip. Skipping the passkey append completes the process when it has proven the user
 * already (a code, or the login's passkey); before that, skipping leads to the code instead.
 * From passkey-appended, skipping is the web SDK's "Continue" (PasskeyAppendedBlock.continue):
 * the passkey proved the user, so the process completes, as process/complete would.
 */
import { failedPrecondition } from '../../../../runtime/errors.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { loadAuthProcess } from './loadAuthProcess.js';
import type { Block } from './blockTypes.js';
import { completeProcess } from './completeProcess.js';
import { isReadyToComplete, pickDefaultMethod } from './processRules.js';
import { sendCode } from './sendCode.js';

export async function skipBlock(deps: AuthFlowDeps, call: FlowCall): Promise<Block> {
  const process = await loadAuthProcess(deps, call, ['passkey-append', 'passkey-appended']);
  if (process.block === 'passkey-appended') return completeProcess(deps, call, process, ['passkey-appended']);
  if (isReadyToComplete(process)) return completeProcess(deps, call, process, ['passkey-append']);
  const method = pickDefaultMethod(process);
  if (!method) throw failedPrecondition('cannot_skip', 'a passkey is the only way to finish this sign-up (the identifier is a username)');
  return sendCode(deps, call, process, ['passkey-append'], method);
}
