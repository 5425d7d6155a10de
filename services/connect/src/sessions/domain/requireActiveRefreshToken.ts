/**
 * The session a refresh token names, for the /v2/me/* calls the web SDK authenticates with its
 * refresh token (web-core's SessionService sends it as the bearer there). The token is looked up
 * by its hash in the caller's project and must be the session's current one: active (not yet traded
 * in at /v2/me/refresh) and unexpired, and its session active and unexpired. A token already traded
 * in is refused without ending the session: reading the user with it gains nothing a refresh would
 * not be refused, and only a refresh with it proves it was copied.
 */
import { unauthenticated } from '../../../../runtime/errors.js';
import type { SessionRecord } from '../store/sessions.js';
import { hashRefreshToken } from './hashRefreshToken.js';
import { requireActiveSession } from './requireActiveSession.js';
import type { SessionDeps } from './sessionDeps.js';

export async function requireActiveRefreshToken(deps: Pick<SessionDeps, 'sessions' | 'now'>, input: { projectId: string; refreshToken: string }): Promise<SessionRecord> {
  const token = await deps.sessions.findRefreshToken(input.projectId, hashRefreshToken(input.refreshToken));
  // Guard: issued in this project (the query is scoped by it).
  if (!token) throw unauthenticated('invalid_refresh_token', 'the refresh token is not valid');
  // Guard: the session's current token, not one traded in for a newer one.
  if (token.status !== 'active') throw unauthenticated('refresh_token_rotated', 'this refresh token was traded in at /v2/me/refresh; use the newest one');
  if (token.expiresAt.getTime() <= deps.now().getTime()) throw unauthenticated('session_ended', `the session ended at ${token.expiresAt.toISOString()}, sign in again`);
  const session = await deps.sessions.findSession(input.projectId, token.sessionId);
  // Guard: the session is still active (not logged out or revoked) and unexpired.
  return requireActiveSession(deps, { projectId: input.projectId, sessionId: token.sessionId, userId: session?.userId ?? '' });
}
