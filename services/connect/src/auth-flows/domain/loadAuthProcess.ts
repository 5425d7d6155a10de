/**
 * The auth process a call continues. Steps name the blocks they may start from; a process in
 * another block (a replayed or out-of-order call), a completed one or an expired one does not move
 * (checkMovable; advanceProcess.ts is the guarded step that moves it on).
 */
import { failedPrecondition, notFound, permissionDenied, unauthenticated } from '../../../../runtime/errors.js';
import { type FlowCall, processFamilyOf } from '../../shared/domain/flowCall.js';
import type { AuthProcessRecord, BlockType } from '../store/authProcesses.js';
import type { AuthFlowDeps } from './authDeps.js';

export async function loadAuthProcess(deps: Pick<AuthFlowDeps, 'authProcesses' | 'now'>, call: FlowCall, from: readonly BlockType[]): Promise<AuthProcessRecord> {
  if (!call.processId) throw unauthenticated('process_token_required', 'this endpoint needs a process token (from /v2/auth/process/init, signup/init or login/init)');
  if (processFamilyOf(call) !== 'auth') throw permissionDenied('wrong_process', 'the process token belongs to a connect flow, not to sign-up or login');
  const process = await deps.authProcesses.find(call.projectId, call.processId);
  if (!process) throw notFound('process_not_found', 'the process does not exist (any more)');
  checkMovable(process, from, deps.now());
  return process;
}

/** Throws unless the process may take a step from one of these blocks now. */
function checkMovable(process: AuthProcessRecord, from: readonly BlockType[], now: Date): void {
  if (process.status === 'completed') throw failedPrecondition('process_completed', 'the process is completed; start a new one');
  if (process.expiresAt.getTime() <= now.getTime()) throw failedPrecondition('process_expired', 'the process has expired; start a new one');
  if (!from.includes(process.block)) throw failedPrecondition('invalid_block', `this step is not possible in block ${process.block}`);
}
