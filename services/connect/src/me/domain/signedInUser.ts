/** What a /v2/me/* call may act on: the signed-in user (signedInUser) and one of their identifiers (myIdentifier). */
import { notFound, unauthenticated } from '../../../../runtime/errors.js';
import { getProject } from '../../projects/index.js';
import { requireActiveSession, requireRecentAuthentication } from '../../sessions/index.js';
import type { IdentifierRecord, UserRecord } from '../../users/index.js';
import type { MeCall, MeDeps } from './meDeps.js';

/**
 * The user of a /v2/me/* call: the session token's `sub`, while its session (`sid`) is active.
 * A signed token alone is not enough: after a logout (or a refresh-token reuse) the session ends
 * and its still-unexpired session tokens must stop working, so every call checks the session.
 *
 * The sensitive actions (account delete, passkey append, identifier add and change) ask for
 * `recentProof`: the session's authentication time must also be within the project's
 * re-authentication window (requireRecentAuthentication.ts), whichever token carries the call.
 */
export async function signedInUser(deps: MeDeps, call: MeCall, options: { recentProof?: boolean } = {}): Promise<UserRecord> {
  // The gateway passes `sub` and `sid` only for verified session tokens; anything else is no session.
  if (!call.userId || !call.sessionId) throw unauthenticated('session_token_required', 'this endpoint needs a session token with a user (sub) and a session (sid)');
  const session = await requireActiveSession(deps, { projectId: call.projectId, sessionId: call.sessionId, userId: call.userId });
  if (options.recentProof) requireRecentAuthentication(await getProject(deps, call.projectId), session, deps.now());
  const user = await deps.users.find(call.projectId, call.userId);
  // The session outlived its user (deleted or disabled through the backend API): nobody is signed in any more.
  if (!user) throw unauthenticated('session_ended', 'the signed-in user no longer exists');
  if (user.status === 'disabled') throw unauthenticated('session_ended', 'the signed-in user is disabled');
  return user;
}

/** One of the signed-in user's identifiers; another user's (or an unknown one) is a 404, alike, so IDs cannot be probed. */
export async function myIdentifier(deps: Pick<MeDeps, 'identifiers'>, projectId: string, userId: string, identifierId: string): Promise<IdentifierRecord> {
  const identifier = (await deps.identifiers.listForUser(projectId, userId)).find((i) => i._id === identifierId);
  if (!identifier) throw notFound('identifier_not_found', `the signed-in user has no identifier ${identifierId}`);
  return identifier;
}
