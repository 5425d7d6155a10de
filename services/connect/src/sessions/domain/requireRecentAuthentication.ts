/**
 * The guard of the sensitive /v2/me/* actions (deleting the account, adding a passkey, adding or
 * changing an identifier): the session's user must have proved themselves (signed up or logged in)
 * within the project's re-authentication window. Whatever token carries the call: the published
 * web-core sends its refresh token as the bearer on every /v2/me/* route, and a session token is
 * one refresh away from it, so the token kind proves nothing about how recently the user was here.
 * A refresh never moves the authentication time, so a stolen refresh token cannot make itself recent.
 *
 * Outside the window: 403 `reauthentication_required`; the user signs in again (a login starts a
 * new session with a new authentication time) and repeats the action.
 */
import { permissionDenied } from '../../../../runtime/errors.js';
import { reauthWindowOf, type ProjectRecord } from '../../projects/index.js';
import type { SessionRecord } from '../store/sessions.js';

/** When the session's user last proved themselves (sessions from before it was recorded: their start). */
export function authenticatedAtOf(session: Pick<SessionRecord, 'authenticatedAt' | 'createdAt'>): Date {
  return session.authenticatedAt ?? session.createdAt;
}

export function requireRecentAuthentication(
  project: Pick<ProjectRecord, '_id' | 'reauthWindowSeconds'>,
  session: Pick<SessionRecord, '_id' | 'authenticatedAt' | 'createdAt'>,
  now: Date,
): void {
  const window = reauthWindowOf(project);
  const ageSeconds = Math.floor((now.getTime() - authenticatedAtOf(session).getTime()) / 1000);
  // Guard: the last proof is within the window (a clock step backwards gives a negative age, which is recent).
  if (ageSeconds > window) {
    throw permissionDenied(
      'reauthentication_required',
      `this action needs a recent sign-in: you signed in ${ageSeconds} s ago, the project allows at most ${window} s; sign in again and repeat it`,
    );
  }
}
