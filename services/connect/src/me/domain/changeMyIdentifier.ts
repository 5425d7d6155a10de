/**
 * PATCH /v2/me/identifier: the signed-in user changes the value of one of their identifiers (the
 * identifier keeps its ID and type). The new value is normalized as at sign-up and, being unproven,
 * makes the identifier "pending" again until /v2/me/identifier/verify/start|finish; a pending
 * verification of the old value no longer counts (finishIdentifierVerification compares values).
 * The same value again changes nothing (and keeps a verified status). A value the project already
 * has is a 409, enforced by the store's unique index in the same single update.
 */
import { alreadyExists, invalidArgument } from '../../../../runtime/errors.js';
import { checkIdentifierType, normalizeIdentifier } from '../../users/domain/identifierRules.js';
import { releaseAbandonedSignup } from '../../auth-flows/domain/releaseAbandonedSignup.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { myIdentifier } from './myIdentifier.js';
import { signedInUser } from './signedInUser.js';

export async function changeMyIdentifier(deps: MeDeps, call: MeCall, input: { identifierId: string; identifierType: string; value: string }): Promise<void> {
  const user = await signedInUser(deps, call, { recentProof: true });
  const type = checkIdentifierType(input.identifierType);
  const identifier = await myIdentifier(deps, call.projectId, user._id, input.identifierId);
  // The type is part of what the identifier is: an email address does not become a phone number.
  if (identifier.type !== type) {
    throw invalidArgument('validation_error', `identifier ${identifier._id} is a ${identifier.type}, not a ${type}`, [
      { field: 'identifierType', message: `must be the identifier's type (${identifier.type})` },
    ]);
  }
  const value = normalizeIdentifier(type, input.value);
  if (value === identifier.value) return;
  const change = () => deps.identifiers.updateValue(call.projectId, user._id, identifier._id, { value, status: 'pending', claimed: false }, deps.now());
  let r = await change();
  // A value only an abandoned sign-up holds is given up to this user, as to a new sign-up.
  if (r === 'duplicate' && (await releaseAbandonedSignup(deps, call.projectId, type, value))) r = await change();
  if (r === 'duplicate') throw alreadyExists('identifier_already_exists', `this ${type} is already registered in the project`);
  // Removed between the lookup and the update (a concurrent delete): the same 404 as an unknown ID.
  if (r === 'missing') await myIdentifier(deps, call.projectId, user._id, identifier._id);
}
