/**
 * Sends a one-time code (or link) for the process's identifier through the challenge service and
 * answers the verification block. The challenge service hashes, limits and delivers it; the
 * process keeps only the challenge's ID. Resends are possible after RESEND_AFTER_SECONDS.
 */
import { invalidArgument } from '../../../../runtime/errors.js';
import type { AuthProcessRecord, BlockType, VerificationMethod } from '../store/authProcesses.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { CodeChannel } from '../../shared/domain/oneTimeCodes.js';
import type { AuthFlowDeps } from './authDeps.js';
import { advanceProcess } from './advanceProcess.js';
import { buildVerifyBlock } from './buildVerifyBlock.js';
import type { Block } from './blockTypes.js';

export const RESEND_AFTER_SECONDS = 30;

const CHALLENGE_TYPE: Record<VerificationMethod, CodeChannel> = { 'email-otp': 'email_otp', 'email-link': 'email_link', 'phone-otp': 'sms_otp' };

export async function sendCode(deps: AuthFlowDeps, call: FlowCall, process: AuthProcessRecord, from: readonly BlockType[], method: VerificationMethod): Promise<Block> {
  const identifier = process.identifier;
  const wanted = method === 'phone-otp' ? 'phone' : 'email';
  if (!process.userId || !identifier || identifier.type !== wanted) {
    throw invalidArgument('validation_error', `this process has no ${wanted} identifier to verify`, [{ field: 'identifierType', message: `the process has no ${wanted} identifier` }]);
  }
  const sent = await deps.challenges.send(call, { userId: process.userId, channel: CHALLENGE_TYPE[method], identifierValue: identifier.value });
  const now = deps.now();
  const block: BlockType = method === 'phone-otp' ? 'phone-verify' : 'email-verify';
  // Guarded on the value the code went to: an identifier/update that raced this send leaves the
  // process without this challenge (its code would prove the old value).
  await advanceProcess(deps, process, from, { block, challenge: { id: sent.challengeId, method, sentAt: now, value: identifier.value } }, { identifierValue: identifier.value });
  return buildVerifyBlock(process.authType, { method, identifier: identifier.value, retryNotBefore: Math.floor(now.getTime() / 1000) + RESEND_AFTER_SECONDS });
}
