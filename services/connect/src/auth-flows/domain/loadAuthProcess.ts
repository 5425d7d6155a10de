/**
 * The auth process a call continues, and the guarded step that moves it on. Steps name the blocks
 * they may start from; a process in another block (a replayed or out-of-order call), a completed
 * one or an expired one does not move.
 */
import { failedPrecondition, notFound, permissionDenied, unauthenticated } from '../../../../runtime/errors.js';
import type { AuthProcessRecord, BlockType } from '../store/authProcesses.js';
import type { FlowCall } from '../../connect-flows/domain/flowDeps.js';
import type { AuthFlowDeps } from './authDeps.js';

export async function authProcessOf(deps: Pick<AuthFlowDeps, 'authProcesses' | 'now'>, call: FlowCall, from: readonly BlockType[]): Promise<AuthProcessRecord> {
  if (!call.processId) throw unauthenticated('process_token_required', 'this endpoint needs a process token (from /v2/auth/process/init, signup/init or login/init)');
  if (!call.processId.startsWith('apr-')) throw permissionDenied('wrong_process', 'the process token belongs to a connect flow, not to sign-up or login');
  const process = await deps.authProcesses.find(call.projectId, call.processId);
  if (!process) throw notFound('process_not_found', 'the process does not exist (any more)');
  checkMovable(process, from, deps.now());
  return process;
}

/** Throws unless the process may take a step from one of these blocks now. */
export function checkMovable(process: AuthProcessRecord, from: readonly BlockType[], now: Date): void {
  if (process.status === 'completed') throw failedPrecondition('process_completed', 'the process is completed; start a new one');
  if (process.expiresAt.getTime() <= now.getTime()) throw failedPrecondition('process_expired', 'the process has expired; start a new one');
  if (!from.includes(process.block)) throw failedPrecondition('invalid_block', `this step is not possible in block ${process.block}`);
}

/** Moves the process on from the blocks given; a lost race (another step moved it first) is a 409. */
export async function advance(deps: Pick<AuthFlowDeps, 'authProcesses' | 'now'>, process: AuthProcessRecord, from: readonly BlockType[], set: Partial<AuthProcessRecord>): Promise<AuthProcessRecord> {
  const moved = await deps.authProcesses.advance(process.projectId, process._id, from, set, deps.now());
  if (!moved) throw failedPrecondition('invalid_block', 'the process moved on in the meantime; reload it');
  return moved;
}
