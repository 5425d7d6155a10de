/**
 * Steps name the blocks they may start from; a process in another block (a replayed or
 * out-of-order call), a completed one or an expired one does not move.
 */
import { failedPrecondition } from '../../../../runtime/errors.js';
import type { AuthProcessRecord, BlockType } from '../store/authProcesses.js';

/** Throws unless the process may take a step from one of these blocks now. */
export function checkMovable(process: AuthProcessRecord, from: readonly BlockType[], now: Date): void {
  if (process.status === 'completed') throw failedPrecondition('process_completed', 'the process is completed; start a new one');
  if (process.expiresAt.getTime() <= now.getTime()) throw failedPrecondition('process_expired', 'the process has expired; start a new one');
  if (!from.includes(process.block)) throw failedPrecondition('invalid_block', `this step is not possible in block ${process.block}`);
}
