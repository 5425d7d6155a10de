/**
 * /v2/connect/manage/list: the passkeys of the user a passkey-list connect token names; an
 * identifier unknown to us has no passkeys. The first list consumes the token, and the process
 * that did may list again with it until it expires (useRepeatableConnectToken): the passkey list
 * of @corbado/connect-react lists again with the same token after each delete and append. The
 * answer also carries the RP ID and the user handle, which the web SDK hands to
 * PublicKeyCredential.signalAllAcceptedCredentials() so the browser can forget deleted passkeys.
 */
import { permissionDenied } from '../../../../runtime/errors.js';
import { getProject } from '../../projects/index.js';
import { allPasskeys, type ManagedPasskey, managedPasskeyOf } from '../../shared/domain/userPasskeys.js';
import { releaseConnectToken, useRepeatableConnectToken } from '../../connect-tokens/index.js';
import { findActiveProcess } from './findActiveProcess.js';
import type { ConnectFlowDeps } from './flowDeps.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import { classifyIdentifier, findUserByIdentifier } from '../../users/index.js';

export interface PasskeyList {
  passkeys: ManagedPasskey[];
  rpId: string;
  userHandle: string;
}

export async function listManagedPasskeys(deps: ConnectFlowDeps, call: FlowCall, connectToken: string): Promise<PasskeyList> {
  const process = await findActiveProcess(deps, call, 'manage');
  if (!process.allowed) throw permissionDenied('manage_not_allowed', 'passkey management is not offered to this client');
  const project = await getProject(deps, call.projectId);
  const { token, first } = await useRepeatableConnectToken(deps, { projectId: call.projectId, secret: connectToken, type: 'passkey-list', processId: process._id });
  try {
    const identifier = classifyIdentifier(token.identifier);
    const user = identifier ? await findUserByIdentifier(deps, call.projectId, identifier) : null;
    if (!user) return { passkeys: [], rpId: project.rpId, userHandle: '' };
    const credentials = await allPasskeys(deps, call, user._id);
    const userHandle = await deps.ceremony.getUserHandle(call, user._id);
    await deps.processes.update(call.projectId, process._id, { userId: user._id, ...(identifier ? { identifier } : {}) }, deps.now());
    return {
      passkeys: credentials.map(managedPasskeyOf),
      rpId: project.rpId,
      userHandle,
    };
  } catch (err) {
    // Nothing was shown: the first list gives the token back, so it stays unused ("initial") for the application.
    if (first) await releaseConnectToken(deps, { projectId: call.projectId, tokenId: token._id, processId: process._id });
    throw err;
  }
}
