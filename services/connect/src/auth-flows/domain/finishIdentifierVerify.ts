/**
 * The code step's finish: checking the code sent by startIdentifierVerify.ts. A wrong or expired
 * code keeps the block and answers it with error, as the reference does; a right one proves the
 * value the code was sent to, and only that value:
 *
 * 1. the challenge service says which value it sent the code to; it must be the value the
 *    process runs on (and the challenge the one the process names);
 * 2. the process records the proof ({identifier ID, value, challenge ID}) in one update guarded
 *    on that challenge and value, so an identifier/update that raced the check makes this fail;
 * 3. the identifier is claimed (claimProvenIdentifier.ts), guarded on the proven value: a value
 *    changed in between stays unverified, and the unproven holders of the value lose it.
 *
 * A value somebody else proved first (or the application vouched for) is refused in the block
 * (identifier_already_in_use): the proof is withdrawn from the process and the sign-up's
 * identifier stays unclaimed, so the page can correct it (identifier/update) or log in instead.
 * Then the process moves on: to a passkey append where the user has none and the browser can
 * create one (the user may skip it), else to completion.
 */
import { DomainError, failedPrecondition, invalidArgument } from '../../../../runtime/errors.js';
import type { AuthProcessRecord, BlockType, ProcessProof } from '../store/authProcesses.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { advanceProcess } from './advanceProcess.js';
import { loadAuthProcess } from './loadAuthProcess.js';
import { canOfferAppend, checkVerificationPair } from './processRules.js';
import { buildVerifyBlock } from './buildVerifyBlock.js';
import type { Block } from './blockTypes.js';
import { claimProvenIdentifier } from './claimProvenIdentifier.js';
import { completeProcess } from './completeProcess.js';
import { offerAppend } from './offerAppend.js';

export const VERIFY_BLOCKS: readonly BlockType[] = ['email-verify', 'phone-verify'];

export async function finishIdentifierVerify(deps: AuthFlowDeps, call: FlowCall, input: { code: string; identifierType: string; verificationType: string }): Promise<Block> {
  const method = checkVerificationPair(input.identifierType, input.verificationType);
  const process = await loadAuthProcess(deps, call, VERIFY_BLOCKS);
  const challenge = process.challenge;
  const identifier = process.identifier;
  if (!challenge || challenge.method !== method || !identifier) throw invalidArgument('validation_error', `no ${method} code was sent in this process`, [{ field: 'verificationType', message: `no ${method} code was sent` }]);
  const again = (code: string, message: string) => buildVerifyBlock(process.authType, { method, identifier: identifier.value, error: { code, message } });
  let sentTo: string;
  try {
    sentTo = (await deps.challenges.verify(call, { userId: process.userId!, challengeId: challenge.id, value: input.code })).identifierValue;
  } catch (err) {
    // The challenge service's refusals (shared/domain/oneTimeCodes.ts) keep the block, with the reason.
    if (!(err instanceof DomainError)) throw err;
    if (err.kind === 'invalid_argument') return again('invalid_code', 'the code is not right; check it and try again');
    if (err.kind === 'failed_precondition' || err.kind === 'not_found') return again('code_expired', 'the code is no longer valid; send a new one');
    if (err.kind === 'resource_exhausted') return again('too_many_attempts', 'too many attempts; wait and send a new code');
    throw err;
  }
  // The code proves the value it went to; a process that runs on another value learns nothing from it.
  if (sentTo !== identifier.value || (challenge.value !== undefined && challenge.value !== sentTo)) throw changedMeanwhile();

  const proof: ProcessProof = { identifierId: identifier.id, value: sentTo, challengeId: challenge.id };
  const proven = await advanceProcess(deps, process, VERIFY_BLOCKS, { verified: true, proof }, { challengeId: challenge.id, identifierValue: sentTo });
  const claim = await claimProvenIdentifier(deps, call, { userId: proven.userId!, identifierId: proof.identifierId, type: identifier.type, value: proof.value });
  if (claim !== 'claimed') {
    await withdrawProof(deps, proven, proof);
    if (claim === 'changed') throw changedMeanwhile();
    return again('identifier_already_in_use', `this ${identifier.type} is already registered; log in instead`);
  }
  if (!proven.passkeyAppended && canOfferAppend(proven) && !(await hasPasskeys(deps, call, proven.userId!))) return offerAppend(deps, call, proven, VERIFY_BLOCKS);
  return completeProcess(deps, call, proven, VERIFY_BLOCKS);
}

const changedMeanwhile = () => failedPrecondition('invalid_block', 'the identifier changed since the code was sent; send a new code');

/** The proof did not bind to the identifier (taken or changed): the process forgets it, and its challenge (the code is used up). */
async function withdrawProof(deps: AuthFlowDeps, process: AuthProcessRecord, proof: ProcessProof): Promise<void> {
  // Guarded on this proof: a newer step's state is left alone. Losing that race changes nothing here.
  await deps.authProcesses.advance(process.projectId, process._id, VERIFY_BLOCKS, { verified: false, proof: undefined, challenge: undefined }, deps.now(), { proofChallengeId: proof.challengeId });
}

async function hasPasskeys(deps: AuthFlowDeps, call: FlowCall, userId: string): Promise<boolean> {
  const r = await deps.ceremony.listPasskeys(call, { userId, page: 1, pageSize: 1 });
  return r.passkeys.length > 0;
}
