/**
 * The code step's finish: checking the code sent by startIdentifierVerify.ts. A wrong or expired
 * code keeps the block and answers it with error, as the reference does; a right one marks the
 * identifier proven and moves on: to a passkey append where the user has none and the browser can
 * create one (the user may skip it), else to completion.
 */
import { DomainError, invalidArgument } from '../../../../runtime/errors.js';
import type { BlockType } from '../store/authProcesses.js';
import type { FlowCall } from '../../connect-flows/domain/flowDeps.js';
import type { AuthFlowDeps } from './authDeps.js';
import { advanceProcess } from './advanceProcess.js';
import { loadAuthProcess } from './loadAuthProcess.js';
import { canOfferAppend } from './canOfferAppend.js';
import { buildVerifyBlock } from './buildVerifyBlock.js';
import type { Block } from './blockTypes.js';
import { checkVerificationPair } from './checkVerificationPair.js';
import { completeProcess } from './completeProcess.js';
import { offerAppend } from './offerAppend.js';

export const VERIFY_BLOCKS: readonly BlockType[] = ['email-verify', 'phone-verify'];

export async function finishIdentifierVerify(deps: AuthFlowDeps, call: FlowCall, input: { code: string; identifierType: string; verificationType: string }): Promise<Block> {
  const method = checkVerificationPair(input.identifierType, input.verificationType);
  const process = await loadAuthProcess(deps, call, VERIFY_BLOCKS);
  const challenge = process.challenge;
  if (!challenge || challenge.method !== method) throw invalidArgument('validation_error', `no ${method} code was sent in this process`, [{ field: 'verificationType', message: `no ${method} code was sent` }]);
  const again = (code: string, message: string) => buildVerifyBlock(process.authType, { method, identifier: process.identifier!.value, error: { code, message } });
  try {
    await deps.challenges.verify(call, { userId: process.userId!, challengeId: challenge.id, value: input.code });
  } catch (err) {
    // The challenge service's refusals (domain/oneTimeCodes.ts) keep the block, with the reason.
    if (!(err instanceof DomainError)) throw err;
    if (err.kind === 'invalid_argument') return again('invalid_code', 'the code is not right; check it and try again');
    if (err.kind === 'failed_precondition' || err.kind === 'not_found') return again('code_expired', 'the code is no longer valid; send a new one');
    if (err.kind === 'resource_exhausted') return again('too_many_attempts', 'too many attempts; wait and send a new code');
    throw err;
  }
  const proven = await advanceProcess(deps, process, VERIFY_BLOCKS, { verified: true });
  if (!proven.passkeyAppended && canOfferAppend(proven) && !(await hasPasskeys(deps, call, proven.userId!))) return offerAppend(deps, call, proven, VERIFY_BLOCKS);
  return completeProcess(deps, call, proven, VERIFY_BLOCKS);
}

async function hasPasskeys(deps: AuthFlowDeps, call: FlowCall, userId: string): Promise<boolean> {
  const r = await deps.ceremony.listPasskeys(call, { userId, page: 1, pageSize: 1 });
  return r.passkeys.length > 0;
}
