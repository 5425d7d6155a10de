/**
 * The passkey steps of the blocks: fresh options (start) and their verification (finish) for
 * passkey-append and passkey-verify, and the conditional-UI login of the login-init block.
 */
import { failedPrecondition } from '../../../../runtime/errors.js';
import type { AuthProcessRecord } from '../store/authProcesses.js';
import type { ClientSnapshot } from '../../connect-flows/store/processes.js';
import type { FlowCall } from '../../connect-flows/domain/flowDeps.js';
import type { AuthFlowDeps } from './authDeps.js';
import { advance, authProcessOf } from './loadAuthProcess.js';
import { describeAuthClient } from './describeAuthClient.js';
import { loginInitBlock, passkeyAppendedBlock, type Block } from './blocks.js';
import { completeProcess } from './completeProcess.js';
import { offerAppend, offerLogin } from './offerPasskey.js';
import { findLoginIdentifierOfUser } from '../../connect-flows/domain/findLoginIdentifierOfUser.js';

/** A newer description of the browser replaces the process's (the insights use it). */
async function withClient(deps: AuthFlowDeps, process: AuthProcessRecord, client: ClientSnapshot | undefined): Promise<AuthProcessRecord> {
  if (!client) return process;
  return advance(deps, process, [process.block], { client });
}

/** `client`: the browser's newer description of itself, if the page sent one. */
export async function passkeyAppendStart(deps: AuthFlowDeps, call: FlowCall, client: ClientSnapshot | undefined): Promise<Block> {
  const process = await withClient(deps, await authProcessOf(deps, call, ['passkey-append']), client);
  return offerAppend(deps, call, process, ['passkey-append']);
}

export async function passkeyAppendFinish(deps: AuthFlowDeps, call: FlowCall, signedChallenge: string): Promise<Block> {
  const process = await authProcessOf(deps, call, ['passkey-append']);
  const r = await deps.ceremony.finishAppend(call, {
    userId: process.userId!,
    processId: process._id,
    attestationResponse: signedChallenge,
    trackingId: call.requestId,
    client: describeAuthClient(process, call),
  });
  const moved = await advance(deps, process, ['passkey-append'], { block: 'passkey-appended', passkeyAppended: true, ceremonyType: r.passkeyData?.ceremonyType || 'local' });
  return passkeyAppendedBlock(moved.authType);
}

export async function passkeyLoginStart(deps: AuthFlowDeps, call: FlowCall, client: ClientSnapshot | undefined): Promise<Block> {
  const process = await withClient(deps, await authProcessOf(deps, call, ['passkey-verify']), client);
  const block = await offerLogin(deps, call, process, ['passkey-verify']);
  if (!block) throw failedPrecondition('passkey_login_unavailable', 'no passkey login is possible for this user here; use the code instead');
  return block;
}

export async function passkeyLoginFinish(deps: AuthFlowDeps, call: FlowCall, signedChallenge: string): Promise<Block> {
  const process = await authProcessOf(deps, call, ['passkey-verify']);
  const r = await deps.ceremony.finishLogin(call, {
    userId: process.userId!,
    assertionResponse: signedChallenge,
    processId: process._id,
    trackingId: call.requestId,
    client: describeAuthClient(process, call),
  });
  return completeProcess(deps, call, process, ['passkey-verify'], { passkeyUsed: true, ceremonyType: r.passkeyData?.ceremonyType || 'local' });
}

/** Conditional UI: the user picked a passkey from autofill on the login-init block (or while passkey-verify was shown). */
export async function passkeyMediationFinish(deps: AuthFlowDeps, call: FlowCall, signedChallenge: string): Promise<Block> {
  const from = ['login-init', 'passkey-verify'] as const;
  const process = await authProcessOf(deps, call, from);
  const r = await deps.ceremony.finishMediation(call, {
    assertionResponse: signedChallenge,
    client: describeAuthClient(process, call),
    processId: process._id,
    trackingId: call.requestId,
    signPasskeyData: false,
  });
  if (r.error?.type === 'credentialDeleted' || !r.passkeyData) {
    return loginInitBlock({ identifierValue: '', isPhone: false, fieldError: { code: 'credential_deleted', message: 'this passkey no longer exists; log in with your email address, phone number or username' } });
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
