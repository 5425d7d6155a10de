/**
 * The guarded step that moves an auth process on: the store moves it only while it is still in one
 * of the blocks the step starts from, so a replayed or concurrent step cannot move it twice.
 */
import { failedPrecondition } from '../../../../runtime/errors.js';
import type { AuthProcessRecord, BlockType, ProcessGuard } from '../store/authProcesses.js';
import type { AuthFlowDeps } from './authDeps.js';

/**
 * Moves the process on from the blocks given (and, with `guard`, only while it still holds what the
 * step read); a lost race (another step moved or changed it first) is a 409.
 */
export async function advanceProcess(
  deps: Pick<AuthFlowDeps, 'authProcesses' | 'now'>,
  process: AuthProcessRecord,
  from: readonly BlockType[],
  set: Partial<AuthProcessRecord>,
  guard?: ProcessGuard,
): Promise<AuthProcessRecord> {
  const moved = await deps.authProcesses.advance(process.projectId, process._id, from, set, deps.now(), guard);
  if (!moved) throw failedPrecondition('invalid_block', 'the process moved on in the meantime; reload it');
  return moved;
}
