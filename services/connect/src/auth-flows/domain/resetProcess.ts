/**
 * POST /v2/auth/process/reset: the user starts over (the web SDK's Block.confirmAbort, when the
 * user goes back in the browser during a flow). A new process starts at the first block of the
 * same kind (signup-init for a sign-up, login-init for a login) for the same browser and client
 * environment; the answer names it (newProcess) and the SDK keeps its token from then on. The old
 * process is left as it is and expires unused (a pending sign-up user gives its identifier up then,
 * see initSignup.ts). A completed or expired process cannot be reset (409): the page starts a new
 * one with process/init.
 */
import type { BlockType } from '../store/authProcesses.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { addFirstBlockSwitch } from './addFirstBlockSwitch.js';
import type { Block } from './blockTypes.js';
import { buildLoginStartBlock } from './buildLoginStartBlock.js';
import { buildSignupInitBlock } from './buildSignupInitBlock.js';
import { loadAuthProcess } from './loadAuthProcess.js';
import { startAuthProcess, type StartedProcess } from './startAuthProcess.js';

const ANY_OPEN_BLOCK: readonly BlockType[] = ['signup-init', 'login-init', 'passkey-append', 'passkey-verify', 'email-verify', 'phone-verify', 'passkey-appended'];

export async function resetProcess(deps: AuthFlowDeps, call: FlowCall): Promise<{ block: Block; newProcess: NonNullable<StartedProcess['newProcess']> }> {
  const old = await loadAuthProcess(deps, call, ANY_OPEN_BLOCK);
  const started = await startAuthProcess(deps, { ...call, processId: undefined }, {
    authType: old.authType,
    block: old.authType === 'signup' ? 'signup-init' : 'login-init',
    ...(old.client ? { client: old.client } : {}),
    ...(old.clientEnvHandle ? { clientEnvHandle: old.clientEnvHandle } : {}),
  });
  const block = old.authType === 'signup' ? addFirstBlockSwitch(buildSignupInitBlock({ identifiers: [] })) : await buildLoginStartBlock(deps, call, started.process);
  return { block, newProcess: started.newProcess! };
}
