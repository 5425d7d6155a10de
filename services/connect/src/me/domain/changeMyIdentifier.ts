/**
 * PATCH /v2/me/identifier: the signed-in user changes the value of one of their identifiers (the
 * identifier keeps its ID and type). The new value is normalized as at sign-up and, being unproven,
 * makes the identifier "pending" and unclaimed again (powerless, as a new one) until
 * /v2/me/identifier/verify/start|finish; a pending verification of the old value no longer counts
 * (finishIdentifierVerification compares values, and the claim is guarded on the proven value).
 * The same value again changes nothing (and keeps a verified status). A value somebody holds
 * claimed is a 409; a value others only asserted is not.
 *
 * The change is guarded on the value read: of two concurrent changes (or a change racing a proof
 * of the old value) one wins, and the other finds the identifier changed.
 */
import { alreadyExists, failedPrecondition, invalidArgument } from '../../../../runtime/errors.js';
import { checkIdentifierType, normalizeIdentifier } from '../../users/index.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { myIdentifier, signedInUser } from './signedInUser.js';

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
  const taken = () => alreadyExists('identifier_already_exists', `this ${type} is already registered in the project`);
  if (await deps.identifiers.findByValue(call.projectId, type, value)) throw taken();
  const r = await deps.identifiers.updateValue(call.projectId, user._id, identifier._id, { value, status: 'pending', claimed: false }, deps.now(), { value: identifier.value });
  if (r === 'duplicate') throw taken();
  if (r === 'missing') {
    // Removed between the lookup and the update (a concurrent delete): the same 404 as an unknown ID.
    await myIdentifier(deps, call.projectId, user._id, identifier._id);
    throw failedPrecondition('identifier_changed', `identifier ${identifier._id} changed in the meantime; read it again`);
  }
}
