/**
 * POST /v2/me/identifier: the signed-in user adds a login identifier. The value is normalized as at
 * sign-up; it starts "pending" and unclaimed: powerless (it logs nobody in, blocks nobody, resolves
 * no connect flow) until /v2/me/identifier/verify/start|finish proves it, and then it is this
 * user's (claimProvenIdentifier). A value somebody holds claimed (proven, or vouched for by the
 * application) is a 409; a value others only asserted is not: whoever proves it first takes it.
 *
 * The per-type limit is checked before the insert and again after it: two concurrent adds can
 * both pass the first check, and the one that finds itself over the limit removes its own record.
 */
import { alreadyExists } from '../../../../runtime/errors.js';
import { newId } from '../../../../runtime/ids.js';
import { checkIdentifierLimit, checkIdentifierType, normalizeIdentifier, type IdentifierRecord } from '../../users/index.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { signedInUser } from './signedInUser.js';

export async function addMyIdentifier(deps: MeDeps, call: MeCall, input: { identifierType: string; value: string }): Promise<IdentifierRecord> {
  const user = await signedInUser(deps, call, { recentProof: true });
  const type = checkIdentifierType(input.identifierType);
  const value = normalizeIdentifier(type, input.value);
  await checkIdentifierLimit(deps, call.projectId, user._id, type);

  const now = deps.now();
  const record: IdentifierRecord = { _id: newId('ide'), projectId: call.projectId, userId: user._id, type, value, status: 'pending', source: 'self', claimed: false, createdAt: now, updatedAt: now };
  if (await deps.identifiers.findByValue(call.projectId, type, value)) throw alreadyExists('identifier_already_exists', `this ${type} is already registered in the project`);
  // Unclaimed, so outside the unique index: a claim made since the check is settled when this user proves the value.
  await deps.identifiers.insert(record);
  await checkIdentifierLimit(deps, call.projectId, user._id, type, record);
  return record;
}
