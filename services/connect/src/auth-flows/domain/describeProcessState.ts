/**
 * GET /v2/auth/process: the block a stored process is at, so a page that reloads can resume it
 * (web-core's ProcessService.init asks for it when it finds a process in localStorage). Blocks that
 * hold a ceremony get fresh options, as the step that shows them would give (a ceremony's options
 * are used once); a verification block is shown again without sending another code. A completed or
 * expired process is a 409 (checkMovable in loadAuthProcess.ts): the SDK then starts a new one.
 *
 * At a first block, `preferredBlock` chooses between sign-up and login (the page's component asks
 * for one); the process follows whichever init call the page makes next.
 */
import { failedPrecondition } from '../../../../runtime/errors.js';
import type { BlockType } from '../store/authProcesses.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { addFirstBlockSwitch } from './addFirstBlockSwitch.js';
import type { Block } from './blockTypes.js';
import { buildLoginStartBlock } from './buildLoginStartBlock.js';
import { buildPasskeyAppendedBlock } from './buildPasskeyAppendedBlock.js';
import { buildSignupInitBlock } from './buildSignupInitBlock.js';
import { buildVerifyBlock } from './buildVerifyBlock.js';
import { loadAuthProcess } from './loadAuthProcess.js';
import { offerAppend } from './offerAppend.js';
import { offerLogin } from './offerLogin.js';
import { RESEND_AFTER_SECONDS } from './sendCode.js';

const RESUMABLE: readonly BlockType[] = ['signup-init', 'login-init', 'passkey-append', 'passkey-verify', 'email-verify', 'phone-verify', 'passkey-appended'];

export async function describeProcessState(deps: AuthFlowDeps, call: FlowCall, preferredBlock: string): Promise<Block> {
  const process = await loadAuthProcess(deps, call, RESUMABLE);
  switch (process.block) {
    case 'signup-init':
    case 'login-init': {
      const first = preferredBlock === 'signup-init' || preferredBlock === 'login-init' ? preferredBlock : process.block;
      return first === 'signup-init' ? addFirstBlockSwitch(buildSignupInitBlock({ identifiers: [] })) : buildLoginStartBlock(deps, call, process);
    }
    case 'passkey-append':
      return offerAppend(deps, call, process, ['passkey-append']);
    case 'passkey-verify': {
      const block = await offerLogin(deps, call, process, ['passkey-verify']);
      if (!block) throw failedPrecondition('passkey_login_unavailable', 'no passkey login is possible for this user here; use the code instead');
      return block;
    }
    case 'email-verify':
    case 'phone-verify': {
      const challenge = process.challenge!;
      const retryNotBefore = Math.floor(challenge.sentAt.getTime() / 1000) + RESEND_AFTER_SECONDS;
      return buildVerifyBlock(process.authType, { method: challenge.method, identifier: process.identifier!.value, retryNotBefore });
    }
    default:
      return buildPasskeyAppendedBlock(process.authType);
  }
}
