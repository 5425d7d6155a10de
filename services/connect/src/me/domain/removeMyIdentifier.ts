/**
 * DELETE /v2/me/identifier: the signed-in user removes one of their identifiers. Every identifier
 * can be typed at login, and a user without any could only ever sign in with a passkey they may
 * lose, so the last one stays (409 last_identifier).
 *
 * "Is it the last one?" and the delete are two operations; two concurrent deletes of a user's last
 * two identifiers could each see the other one still there. So the check is repeated after the
 * delete, and a delete that left the user with none puts its identifier back and is refused.
 */
import { failedPrecondition } from '../../../../runtime/errors.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { myIdentifier, signedInUser } from './signedInUser.js';

export async function removeMyIdentifier(deps: MeDeps, call: MeCall, identifierId: string): Promise<void> {
  const user = await signedInUser(deps, call);
  const identifier = await myIdentifier(deps, call.projectId, user._id, identifierId);
  const last = () => failedPrecondition('last_identifier', `identifier ${identifierId} is the user's last login identifier; add another one before removing it`);
  const remaining = async () => (await deps.identifiers.listForUser(call.projectId, user._id)).length;
  if ((await remaining()) <= 1) throw last();

  // Removed concurrently since the lookup: the same 404 as an unknown ID.
  if (!(await deps.identifiers.delete(call.projectId, user._id, identifier._id))) await myIdentifier(deps, call.projectId, user._id, identifier._id);
  if ((await remaining()) === 0) {
    // Put back as it was. That fails only if someone registered the value in this very instant;
    // the user is then left without identifiers, which is logged rather than hidden.
    if ((await deps.identifiers.insert(identifier)) === 'duplicate') {
      deps.logger.warn({ projectId: call.projectId, userId: user._id, identifierId }, 'concurrent removals left the user without identifiers and the last value was taken meanwhile');
    }
    throw last();
  }
}
