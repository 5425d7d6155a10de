/**
 * /v2/auth/process/init: starts an auth process from what the browser says about itself; the
 * first block is login-init (with a conditional-UI challenge when the browser supports passkey
 * autofill) or signup-init when the page prefers it, each with the other as its alternative.
 */
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import { resolveClientEnv } from '../../shared/domain/resolveClientEnv.js';
import type { AuthFlowDeps } from './authDeps.js';
import { addFirstBlockSwitch } from './addFirstBlockSwitch.js';
import { buildLoginStartBlock } from './buildLoginStartBlock.js';
import { buildSignupInitBlock } from './buildSignupInitBlock.js';
import type { Block } from './blockTypes.js';
import { startAuthProcess } from './startAuthProcess.js';

export interface InitializedAuth {
  token: string;
  expiresAt: number;
  newClientEnvHandle?: string;
  block: Block;
}

export interface ProcessInitInput {
  /** What the browser said about itself, and the client environment handle it holds, if any. */
  client: ClientSnapshot;
  clientEnvHandle: string | undefined;
  preferredBlock: string;
}

export async function initProcess(deps: AuthFlowDeps, call: FlowCall, input: ProcessInitInput): Promise<InitializedAuth> {
  const client = input.client;
  const { env, issued } = await resolveClientEnv(deps, call.projectId, input.clientEnvHandle, client.visitorId);
  const signup = input.preferredBlock === 'signup-init';
  // A new process always: process/init is how a page starts over.
  const { process, newProcess } = await startAuthProcess(deps, { ...call, processId: undefined }, {
    authType: signup ? 'signup' : 'login',
    block: signup ? 'signup-init' : 'login-init',
    client,
    clientEnvHandle: env.handle,
  });
  const block: Block = signup ? addFirstBlockSwitch(buildSignupInitBlock({ identifiers: [] })) : await buildLoginStartBlock(deps, call, process);
  return { token: newProcess!.token, expiresAt: newProcess!.expiresAt, ...(issued ? { newClientEnvHandle: env.handle } : {}), block };
}
