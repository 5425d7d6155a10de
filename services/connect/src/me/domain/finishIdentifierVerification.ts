/**
 * Finishes F11 (/v2/me/identifier/verify/finish): the challenge service checks the code of the
 * challenge the last start created (a wrong code is its 400 with the attempts left, an expired or
 * used-up challenge its 410, an already used one its 409) and the identifier becomes "verified".
 */
import { failedPrecondition } from '../../../../runtime/errors.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { myIdentifier } from './myIdentifier.js';
import { signedInUser } from './signedInUser.js';

export async function finishIdentifierVerification(deps: MeDeps, call: MeCall, input: { identifierId: string; code: string }): Promise<void> {
  const user = await signedInUser(deps, call);
  const identifier = await myIdentifier(deps, call.projectId, user._id, input.identifierId);
  const pending = await deps.identifierVerifications.find(call.projectId, user._id, identifier._id, deps.now());
  if (!pending) throw failedPrecondition('verification_not_started', 'call /v2/me/identifier/verify/start for this identifier first');
  // The code proves the value it was sent to; if the identifier changed since, it proves nothing about it.
  if (pending.identifierValue !== identifier.value) throw failedPrecondition('verification_not_started', 'the identifier changed since the code was sent; start again');

  await deps.challenges.verify(call, { userId: user._id, challengeId: pending.challengeId, value: input.code });
  // "primary" already means verified (and more): only a pending identifier changes.
  if (identifier.status === 'pending') await deps.identifiers.updateStatus(call.projectId, user._id, identifier._id, { status: 'verified', claimed: true }, deps.now(), { from: 'pending', value: pending.identifierValue });
  await deps.identifierVerifications.remove(call.projectId, identifier._id, pending.challengeId);
}
