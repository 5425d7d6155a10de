/** The conditional-UI login of the login-init block: its finish, which completes the process for the passkey's user. */
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { loadAuthProcess } from './loadAuthProcess.js';
import { describeAuthClient } from './processClient.js';
import { buildLoginInitBlock } from './buildLoginInitBlock.js';
import type { Block } from './blockTypes.js';
import { completeProcess } from './completeProcess.js';
import { findLoginIdentifierOfUser } from '../../users/index.js';

/** Conditional UI: the user picked a passkey from autofill on the login-init block (or while passkey-verify was shown). */
export async function finishPasskeyMediation(deps: AuthFlowDeps, call: FlowCall, signedChallenge: string): Promise<Block> {
  const from = ['login-init', 'passkey-verify'] as const;
  const process = await loadAuthProcess(deps, call, from);
  const r = await deps.ceremony.finishMediation(call, {
    assertionResponse: signedChallenge,
    client: describeAuthClient(process, call),
    processId: process._id,
    trackingId: call.requestId,
  });
  if (r.passkeyDeleted) {
    return buildLoginInitBlock({ identifierValue: '', isPhone: false, fieldError: { code: 'credential_deleted', message: 'this passkey no longer exists; log in with your email address, phone number or username' } });
  }
  const userId = r.passkeyData.userId;
  const identifier = await findLoginIdentifierOfUser(deps, call.projectId, userId, r.passkeyData.username);
  return completeProcess(deps, call, process, from, {
    authType: 'login',
    userId,
    ...(identifier ? { identifier } : {}),
    passkeyUsed: true,
    ceremonyType: r.passkeyData.ceremonyType || 'local',
  });
}
