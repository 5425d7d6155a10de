/**
 * The code step's start: sending a code for the process's identifier, from a verification block
 * or as the alternative of a passkey block. A resend waits RESEND_AFTER_SECONDS after the last code.
 */
import { resourceExhausted } from '../../../../runtime/errors.js';
import type { BlockType } from '../store/authProcesses.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { loadAuthProcess } from './loadAuthProcess.js';
import type { Block } from './blockTypes.js';
import { checkVerificationPair } from './processRules.js';
import { VERIFY_BLOCKS } from './finishIdentifierVerify.js';
import { RESEND_AFTER_SECONDS, sendCode } from './sendCode.js';

const START_FROM: readonly BlockType[] = [...VERIFY_BLOCKS, 'passkey-append', 'passkey-verify'];

export async function startIdentifierVerify(deps: AuthFlowDeps, call: FlowCall, input: { identifierType: string; verificationType: string }): Promise<Block> {
  const method = checkVerificationPair(input.identifierType, input.verificationType);
  const process = await loadAuthProcess(deps, call, START_FROM);
  const sentAt = process.challenge?.sentAt.getTime();
  const wait = sentAt === undefined ? 0 : Math.ceil((sentAt + RESEND_AFTER_SECONDS * 1000 - deps.now().getTime()) / 1000);
  if (wait > 0) throw resourceExhausted('resend_too_early', `a code was sent just now; send another in ${wait} s`, wait);
  return sendCode(deps, call, process, START_FROM, method);
}
