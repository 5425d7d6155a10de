/**
 * F4 (/v2/me/passkeys/append/finish): the ceremony service verifies the attestation against the
 * registration F3 started for this session and stores the passkey. The pending append is removed
 * only after success: a response the ceremony refuses as malformed consumed nothing, and the page
 * may send a corrected one; for anything else the ceremony's session is spent and a new F3 is needed.
 *
 * A passkey is a lasting way into the account, so the user is told about each one added here
 * (notifyPasskeyAddedByMe.ts): an account taken over through a stolen session shows itself.
 */
import { failedPrecondition } from '../../../../runtime/errors.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';
import { describeClient } from '../../shared/domain/flowCall.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { signedInUser } from './signedInUser.js';
import { notifyPasskeyAddedByMe } from './notifyPasskeyAddedByMe.js';

export interface FinishMyAppendInput {
  attestationResponse: string;
  /** The browser describes itself afresh. */
  client: ClientSnapshot;
}

export async function finishMyAppend(deps: MeDeps, call: MeCall, input: FinishMyAppendInput): Promise<void> {
  const user = await signedInUser(deps, call, { recentProof: true });
  const pending = await deps.meAppends.find(call.projectId, call.sessionId, user._id, deps.now());
  if (!pending) throw failedPrecondition('append_not_started', 'call /v2/me/passkeys/append/start in this session before finishing an append');
  // The browser describes itself afresh, but the environment stays the one F3 resolved (and
  // issued or confirmed): that is where the passkey is recorded as created.
  const client = describeClient({ client: input.client, clientEnvHandle: pending.clientEnvHandle }, call);
  const finished = await deps.ceremony.finishAppend(call, {
    userId: user._id,
    processId: pending.processId,
    attestationResponse: input.attestationResponse,
    trackingId: call.requestId || pending.processId,
    client,
  });
  await deps.meAppends.remove(call.projectId, call.sessionId, pending.processId);
  await notifyPasskeyAddedByMe(deps, call, user._id, finished.passkeyData?.aaguidDetails?.name);
}
