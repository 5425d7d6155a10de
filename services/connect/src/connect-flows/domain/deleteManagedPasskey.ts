/**
 * /v2/connect/manage/delete: deletes one passkey of the user a passkey-delete connect token
 * names. The passkey may be named by its ID ("cre-…", as the list shows it) or by its WebAuthn
 * credential ID. The token is consumed first and released if nothing was deleted (unknown
 * passkey), so one token deletes at most one passkey.
 */
import { DomainError, notFound, permissionDenied } from '../../../../runtime/errors.js';
import { claimConnectToken, consumeConnectToken, releaseConnectToken } from '../../connect-tokens/index.js';
import { findActiveProcess } from './findActiveProcess.js';
import { isClientFailure } from './ceremonyFailures.js';
import type { ConnectFlowDeps } from './flowDeps.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import { classifyIdentifier, findUserByIdentifier } from '../../users/index.js';
import { allPasskeys } from '../../shared/domain/userPasskeys.js';

const PASSKEY_ID = /^cre-[0-9]{1,30}$/;

export async function deleteManagedPasskey(deps: ConnectFlowDeps, call: FlowCall, input: { connectToken: string; credentialId: string }): Promise<void> {
  const process = await findActiveProcess(deps, call, 'manage');
  if (!process.allowed) throw permissionDenied('manage_not_allowed', 'passkey management is not offered to this client');
  const token = await claimConnectToken(deps, { projectId: call.projectId, secret: input.connectToken, type: 'passkey-delete', processId: process._id });
  const ref = { projectId: call.projectId, tokenId: token._id, processId: process._id };
  await consumeConnectToken(deps, ref);
  try {
    const identifier = classifyIdentifier(token.identifier);
    const user = identifier ? await findUserByIdentifier(deps, call.projectId, identifier) : null;
    if (!user) throw notFound('passkey_not_found', 'the user of the connect token has no such passkey');
    let passkeyId = input.credentialId;
    if (!PASSKEY_ID.test(passkeyId)) {
      const match = (await allPasskeys(deps, call, user._id)).find((c) => c.credentialId === input.credentialId);
      if (!match) throw notFound('passkey_not_found', 'the user of the connect token has no such passkey');
      passkeyId = match.id;
    }
    await deps.ceremony.deletePasskey(call, { userId: user._id, passkeyId });
  } catch (err) {
    if (isClientFailure(err) || (err instanceof DomainError && err.kind === 'not_found')) await releaseConnectToken(deps, ref);
    throw err;
  }
}
