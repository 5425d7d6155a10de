/**
 * POST /v2/users/{userID}/longSessions/{longSessionID}/shortSessions (reference ShortSessionCreate):
 * a session token for one of the user's sessions, signed with the project's key and carrying the
 * same claims as every session token (signSessionToken.ts), so it verifies against the project's
 * JWKS and works on /v2/me/* like one from a sign-in. `auth_time` stays the session's
 * authentication time (for a session the application created: its creation).
 *
 * Only an active session gets one: the use is recorded in one guarded update (touchSession: active,
 * unexpired, and under "keep" used and started recently enough), so a session revoked, logged out,
 * expired or idle is refused with 409 `session_ended` naming its status, and two racing requests
 * cannot revive an idle one. A disabled user gets none, and their session ends here.
 *
 * `issuer` must be the project's `iss` (its frontend API URL): the service signs no token with an
 * issuer its own verifiers and the application's would not expect.
 */
import { failedPrecondition, invalidArgument, notFound } from '../../../../runtime/errors.js';
import { getProject, sessionUseLimits } from '../../projects/index.js';
import { longSessionStatusOf } from './describeLongSession.js';
import { endIdleSession } from './endIdleSession.js';
import { findOwnSession } from './manageUserSessions.js';
import type { SessionDeps } from './sessionDeps.js';
import { signSessionToken } from './signSessionToken.js';
import { revokeSession } from './revokeSession.js';

export interface IssueShortSessionInput {
  projectId: string;
  userId: string;
  sessionId: string;
  /** The token's requested `iss`. */
  issuer: string;
}

export async function issueShortSession(deps: SessionDeps, input: IssueShortSessionInput): Promise<{ value: string }> {
  const project = await getProject(deps, input.projectId);
  // Guard: the issuer is the project's (the signer always writes that one).
  if (input.issuer !== project.frontendApiUrl) {
    throw invalidArgument('validation_error', `issuer must be the project's frontend API URL ${project.frontendApiUrl}, got "${input.issuer}"`, [
      { field: 'issuer', message: `must be ${project.frontendApiUrl}` },
    ]);
  }
  await findOwnSession(deps, project._id, input.sessionId, input.userId);
  const now = deps.now();
  const user = await deps.users.find(project._id, input.userId);
  // Guard: the session's user still exists (deleting a user ends their sessions).
  if (!user) throw notFound('user_not_found', `user ${input.userId} does not exist in project ${project._id}`);
  // Guard: a disabled user gets no new tokens; a session that escaped the disabling ends here.
  if (user.status === 'disabled') {
    await revokeSession(deps, { _id: input.sessionId, projectId: project._id, userId: user._id }, 'user_unavailable');
    throw failedPrecondition('user_disabled', `user ${user._id} is disabled; no session token is issued`);
  }
  const session = await deps.sessions.touchSession(project._id, input.sessionId, now, sessionUseLimits(project, now));
  if (!session) {
    await endIdleSession(deps, project, input.sessionId, now);
    const ended = await findOwnSession(deps, project._id, input.sessionId, input.userId);
    throw failedPrecondition('session_ended', `long session ${ended._id} is ${longSessionStatusOf(ended, project, now)}; start a new one`);
  }
  const signed = await signSessionToken(deps, project, session, user);
  return { value: signed.sessionToken };
}
