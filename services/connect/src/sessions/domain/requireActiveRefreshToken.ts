/**
 * The session a refresh token names, for the /v2/me/* calls the web SDK authenticates with its
 * refresh token (web-core's SessionService sends it as the bearer there). The token is looked up
 * by its hash in the caller's project and must be the session's current one: active (not yet traded
 * in at /v2/me/refresh) and unexpired, and its session active and unexpired.
 *
 * A token already traded in (refresh rotation "rotate") is a reuse, exactly as at /v2/me/refresh:
 * the owner holds the newer token, so whoever shows the spent one holds a copy (or the owner shows
 * it after the thief refreshed). Either way the session ends for every holder (session.revoked, with
 * the client that showed the spent token as the event's client).
 *
 * Under "keep" the token is the session's only one, so this call counts as a use: it must come
 * within the project's idle timeout and the session's maximum lifetime, and records itself
 * (touchSession's guarded update), so an SDK that only calls /v2/me/* keeps its session alive.
 */
import { unauthenticated } from '../../../../runtime/errors.js';
import { getProject, refreshRotationOf, sessionUseLimits } from '../../projects/index.js';
import type { SessionRecord } from '../store/sessions.js';
import { endIdleSession } from './endIdleSession.js';
import { hashRefreshToken } from './refreshTokens.js';
import { requireActiveSession } from './requireActiveSession.js';
import { revokeSession } from './revokeSession.js';
import type { SessionDeps } from './sessionDeps.js';

export async function requireActiveRefreshToken(
  deps: Pick<SessionDeps, 'sessions' | 'projects' | 'events' | 'now' | 'logger'>,
  input: { projectId: string; refreshToken: string; client?: { clientAddress: string; userAgent: string } },
): Promise<SessionRecord> {
  const now = deps.now();
  const token = await deps.sessions.findRefreshToken(input.projectId, hashRefreshToken(input.refreshToken));
  // Guard: issued in this project (the query is scoped by it).
  if (!token) throw unauthenticated('invalid_refresh_token', 'the refresh token is not valid');
  // Guard: the session's current token; a spent one shown again is a reuse and ends the session.
  if (token.status !== 'active') {
    // A session that had already ended (a refresh of it spends the token too) is simply over.
    const reused = await deps.sessions.findSession(input.projectId, token.sessionId);
    if (!reused || !(await revokeSession(deps, reused, 'refresh_token_reuse', input.client))) {
      throw unauthenticated('session_ended', 'the session has ended (logged out, expired or revoked), sign in again');
    }
    deps.logger.warn({ projectId: input.projectId, sessionId: token.sessionId }, 'spent refresh token shown on /v2/me: session revoked');
    throw unauthenticated('refresh_token_reused', 'the refresh token was already used; the session has ended, sign in again');
  }
  if (token.expiresAt.getTime() <= now.getTime()) throw unauthenticated('session_ended', `the session ended at ${token.expiresAt.toISOString()}, sign in again`);
  const session = await deps.sessions.findSession(input.projectId, token.sessionId);
  // Guard: the session is still active (not logged out or revoked) and unexpired.
  const active = await requireActiveSession(deps, { projectId: input.projectId, sessionId: token.sessionId, userId: session?.userId ?? '' });
  const project = await getProject(deps, input.projectId);
  if (refreshRotationOf(project) !== 'keep') return active;
  // Guard (keep): used within the idle timeout and younger than the maximum lifetime; recorded as a use.
  const touched = await deps.sessions.touchSession(project._id, active._id, now, sessionUseLimits(project, now));
  if (!touched) {
    await endIdleSession(deps, project, active._id, now);
    throw unauthenticated('session_ended', 'the session has ended (idle too long or past its maximum lifetime), sign in again');
  }
  return touched;
}
