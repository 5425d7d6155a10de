/**
 * Finishes F11 (/v2/me/identifier/verify/finish): the challenge service checks the code of the
 * challenge the last start created (a wrong code is its 400 with the attempts left, an expired or
 * used-up challenge its 410, an already used one its 409) and says which value it sent the code
 * to. That value, and only that, is proven:
 *
 * 1. it must be the value the verification was started for and the identifier's value now;
 * 2. the verification record is consumed, guarded on its challenge: a newer start (whose code went
 *    elsewhere) or a concurrent finish leaves nothing to consume, and this finish proves nothing;
 * 3. the identifier is claimed guarded on the proven value (claimProvenIdentifier): a value
 *    changed in between (PATCH /v2/me/identifier) stays unverified, and the unproven holders of
 *    the value lose it.
 *
 * A value somebody else proved first (or the application vouched for) is a 409
 * identifier_already_exists: the identifier stays pending and unclaimed (the user may remove it).
 */
import { alreadyExists, failedPrecondition } from '../../../../runtime/errors.js';
import { claimProvenIdentifier } from '../../auth-flows/index.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { myIdentifier, signedInUser } from './signedInUser.js';

export async function finishIdentifierVerification(deps: MeDeps, call: MeCall, input: { identifierId: string; code: string }): Promise<void> {
  const user = await signedInUser(deps, call);
  const identifier = await myIdentifier(deps, call.projectId, user._id, input.identifierId);
  const pending = await deps.identifierVerifications.find(call.projectId, user._id, identifier._id, deps.now());
  if (!pending) throw failedPrecondition('verification_not_started', 'call /v2/me/identifier/verify/start for this identifier first');
  const changed = () => failedPrecondition('verification_not_started', 'the identifier changed since the code was sent; start again');
  // The code proves the value it was sent to; if the identifier changed since, it proves nothing about it.
  if (pending.identifierValue !== identifier.value) throw changed();

  const { identifierValue: sentTo } = await deps.challenges.verify(call, { userId: user._id, challengeId: pending.challengeId, value: input.code });
  if (sentTo !== pending.identifierValue) throw changed();
  if (!(await deps.identifierVerifications.remove(call.projectId, identifier._id, pending.challengeId))) {
    throw failedPrecondition('verification_not_started', 'a newer code was sent for this identifier (or this one was used); enter the newest code');
  }
  const claim = await claimProvenIdentifier(deps, call, { userId: user._id, identifierId: identifier._id, type: identifier.type, value: sentTo });
  if (claim === 'changed') throw changed();
  if (claim === 'taken') throw alreadyExists('identifier_already_exists', `this ${identifier.type} is already registered in the project (somebody proved it first)`);
}
