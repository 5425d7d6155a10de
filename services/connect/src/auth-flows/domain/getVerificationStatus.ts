/**
 * GET /v2/auth/identifier/verify/status: what the page that sent an email link polls while it waits
 * for the link to be opened (possibly in another tab or on another device, which finishes the
 * verification with the process token the link carries). The answer tells the web SDK which of
 * its three cases it is in:
 *
 * - still waiting: the verification block as it is (the SDK keeps polling);
 * - the identifier was proven elsewhere and the process went on there: the verification block with
 *   continueOnOtherDevice "email-link-verified" (the SDK tells the user to continue there);
 * - the process completed elsewhere: continueOnOtherDevice "process-already-completed".
 *
 * Nothing is changed: polling must not move the process or send anything.
 */
import { failedPrecondition, notFound, permissionDenied, unauthenticated } from '../../../../runtime/errors.js';
import { type FlowCall, processFamilyOf } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import type { Block } from './blockTypes.js';
import { buildVerifyBlock } from './buildVerifyBlock.js';
import { VERIFY_BLOCKS } from './finishIdentifierVerify.js';
import { pickDefaultMethod } from './processRules.js';

export async function getVerificationStatus(deps: Pick<AuthFlowDeps, 'authProcesses' | 'now'>, call: FlowCall): Promise<Block> {
  if (!call.processId) throw unauthenticated('process_token_required', 'this endpoint needs a process token (from /v2/auth/process/init, signup/init or login/init)');
  if (processFamilyOf(call) !== 'auth') throw permissionDenied('wrong_process', 'the process token belongs to a connect flow, not to sign-up or login');
  const process = await deps.authProcesses.find(call.projectId, call.processId);
  if (!process) throw notFound('process_not_found', 'the process does not exist (any more)');

  const method = process.challenge?.method ?? pickDefaultMethod(process) ?? 'email-link';
  const block = buildVerifyBlock(process.authType, { method, identifier: process.identifier?.value ?? '' });
  // Guard order: a completed process is reported as such even after it expired (the page may poll late).
  if (process.status === 'completed') return { ...block, continueOnOtherDevice: { reason: 'process-already-completed' } };
  if (process.expiresAt.getTime() <= deps.now().getTime()) throw failedPrecondition('process_expired', 'the process has expired; start a new one');
  if (VERIFY_BLOCKS.includes(process.block) && !process.verified) return block;
  if (process.verified) return { ...block, continueOnOtherDevice: { reason: 'email-link-verified' } };
  throw failedPrecondition('invalid_block', `no identifier verification is running in this process (block ${process.block})`);
}
