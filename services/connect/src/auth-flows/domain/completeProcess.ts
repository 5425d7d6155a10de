/**
 * The end of a sign-up or login: the user becomes active, the process is completed (it never
 * moves again) and a session starts: the completed block carries the session token (shortSession)
 * and the refresh token (longSession). The identifier a code proved was claimed when the code was
 * checked (finishIdentifierVerify.ts), bound to the value the code went to; a sign-up completed
 * with a passkey alone proved no identifier, and its identifiers stay unclaimed. The user it
 * completes for becomes an account then, if it was a sign-up's (see activateUser).
 *
 * The completion is guarded on what the caller read (the identifier value and the proof): an
 * identifier/update that raced it (which withdraws the proof) makes it fail rather than complete
 * on a proof that no longer stands.
 */
import { failedPrecondition } from '../../../../runtime/errors.js';
import type { AuthProcessRecord, BlockType } from '../store/authProcesses.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import { startSession } from '../../sessions/index.js';
import { activateUser } from '../../users/index.js';
import { eventClientOf } from '../../shared/domain/changeEvents.js';
import type { AuthFlowDeps } from './authDeps.js';
import { advanceProcess } from './advanceProcess.js';
import { buildCompletedBlock } from './buildCompletedBlock.js';
import { isReadyToComplete } from './processRules.js';
import type { Block, PasskeyOperation } from './blockTypes.js';

/** `proof` is what the completing step itself established (a passkey used, a code), stored with the completion. */
export async function completeProcess(deps: AuthFlowDeps, call: FlowCall, process: AuthProcessRecord, from: readonly BlockType[], proof: Partial<AuthProcessRecord> = {}): Promise<Block> {
  if (!isReadyToComplete({ ...process, ...proof })) throw failedPrecondition('process_not_ready', 'the process has not verified the user yet (passkey or code)');
  const done = await advanceProcess(deps, process, from, { ...proof, block: 'completed', status: 'completed' }, {
    ...(process.identifier ? { identifierValue: process.identifier.value } : {}),
    proofChallengeId: process.proof?.challengeId ?? null,
  });
  const userId = done.userId!;
  // A sign-up user becomes an account here (user.created), a pending one active (user.updated);
  // the browser completing it is the events' client.
  await activateUser(deps, call.projectId, userId, eventClientOf(call));
  const session = await startSession(deps, { projectId: call.projectId, userId, withRefreshToken: true });
  const operation: PasskeyOperation | undefined =
    done.passkeyAppended || done.passkeyUsed
      ? { operationType: done.passkeyAppended ? 'append' : 'verify', identifierValue: done.identifier?.value ?? '', identifierType: done.identifier?.type ?? '', ceremonyType: done.ceremonyType ?? 'local' }
      : undefined;
  return buildCompletedBlock(done.authType, { shortSession: session.sessionToken, longSession: session.refreshToken ?? '', ...(operation ? { passkeyOperation: operation } : {}) });
}
