/**
 * A new auth process and its token (kind "process", `sub` = the process ID, expiring with it),
 * or the process the call's process token names when the page already has one and it is still
 * at its first block (sign-up and login may be switched there).
 */
import { newId } from '../../../../runtime/ids.js';
import type { AuthProcessRecord, AuthType, BlockType } from '../store/authProcesses.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import { signProcessToken } from '../../projects/index.js';
import { AUTH_PROCESS_LIFETIME_SECONDS, type AuthFlowDeps } from './authDeps.js';
import { loadAuthProcess } from './loadAuthProcess.js';

export interface StartedProcess {
  process: AuthProcessRecord;
  /** Set when this call created the process (the answer's newProcess). */
  newProcess?: { token: string; expiresAt: number };
}

export const FIRST_BLOCKS: readonly BlockType[] = ['signup-init', 'login-init'];

export async function startAuthProcess(
  deps: AuthFlowDeps,
  call: FlowCall,
  input: { authType: AuthType; block: BlockType; client?: ClientSnapshot; clientEnvHandle?: string },
): Promise<StartedProcess> {
  if (call.processId) return { process: await loadAuthProcess(deps, call, FIRST_BLOCKS) };
  const now = deps.now();
  const expiresAt = Math.floor(now.getTime() / 1000) + AUTH_PROCESS_LIFETIME_SECONDS;
  const process: AuthProcessRecord = {
    _id: newId('apr'),
    projectId: call.projectId,
    status: 'active',
    authType: input.authType,
    block: input.block,
    ...(input.client ? { client: input.client } : {}),
    ...(input.clientEnvHandle ? { clientEnvHandle: input.clientEnvHandle } : {}),
    verified: false,
    passkeyAppended: false,
    passkeyUsed: false,
    createdAt: now,
    updatedAt: now,
    expiresAt: new Date(expiresAt * 1000),
  };
  await deps.authProcesses.insert(process);
  const token = await signProcessToken(deps, call.projectId, process._id, 'auth', Math.max(1, expiresAt - Math.floor(deps.now().getTime() / 1000)));
  return { process, newProcess: { token, expiresAt } };
}
