/**
 * POST /v2/me/identifier: the signed-in user adds a login identifier. The value is normalized as at
 * sign-up; it starts "pending" (unverified) until /v2/me/identifier/verify/start|finish proves it.
 * A value the project already has is a 409, enforced by the store's unique index, unless only an
 * abandoned sign-up holds it (releaseAbandonedSignup).
 *
 * The per-type limit is checked before the insert and again after it: two concurrent adds can
 * both pass the first check, and the one that finds itself over the limit removes its own record.
 */
import { alreadyExists, failedPrecondition } from '../../../../runtime/errors.js';
import { newId } from '../../../../runtime/ids.js';
import type { IdentifierRecord } from '../../users/store/identifiers.js';
import { checkIdentifierType, normalizeIdentifier } from '../../users/domain/identifierRules.js';
import { releaseAbandonedSignup } from '../../auth-flows/domain/releaseAbandonedSignup.js';
import { MAX_IDENTIFIERS_PER_TYPE } from './identifierLimits.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { signedInUser } from './signedInUser.js';

export async function addMyIdentifier(deps: MeDeps, call: MeCall, input: { identifierType: string; value: string }): Promise<IdentifierRecord> {
  const user = await signedInUser(deps, call, { recentProof: true });
  const type = checkIdentifierType(input.identifierType);
  const value = normalizeIdentifier(type, input.value);
  const limit = MAX_IDENTIFIERS_PER_TYPE[type];
  const tooMany = () => failedPrecondition('identifier_limit_reached', `a user can have at most ${limit} identifier${limit === 1 ? '' : 's'} of type ${type}; change or remove one first`);
  const ofType = async () => (await deps.identifiers.listForUser(call.projectId, user._id)).filter((i) => i.type === type);
  if ((await ofType()).length >= limit) throw tooMany();

  const now = deps.now();
  const record: IdentifierRecord = { _id: newId('ide'), projectId: call.projectId, userId: user._id, type, value, status: 'pending', source: 'self', claimed: false, createdAt: now, updatedAt: now };
  let inserted = await deps.identifiers.insert(record);
  // A value only an abandoned sign-up holds is given up to this user, as to a new sign-up.
  if (inserted === 'duplicate' && (await releaseAbandonedSignup(deps, call.projectId, type, value))) inserted = await deps.identifiers.insert(record);
  if (inserted === 'duplicate') throw alreadyExists('identifier_already_exists', `this ${type} is already registered in the project`);
  // Oldest first: the records beyond the limit are the newest, and only those give way.
  if ((await ofType()).findIndex((i) => i._id === record._id) >= limit) {
    await deps.identifiers.delete(call.projectId, user._id, record._id);
    throw tooMany();
  }
  return record;
}
