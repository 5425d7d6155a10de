/**
 * /v2/me/refresh: trades a refresh token for a new session token and a new refresh token. Every
 * refresh token works once. Presenting one that was already traded in means two parties hold it
 * (a stolen copy, or the owner after the thief): since we cannot tell which one is legitimate, the
 * whole session ends, and with it the newest refresh token too (OAuth 2.0 Security BCP, §4.14).
 *
 * A project may keep refresh tokens instead (refreshRotationOf: "keep"), for clients that never
 * store the token a refresh returns (the published web SDKs): the presented token is checked the
 * same way (issued in the project, active, unexpired, its session active) and answered again as
 * the refresh token; only the session token is new. Since nothing then notices a copy, a kept
 * session also ends when unused for the project's idle timeout, and at its maximum lifetime
 * (sessionUseLimits, checked in the same guarded update that records the use).
 */
import { unauthenticated } from '../../../../runtime/errors.js';
import { getProject, refreshRotationOf, sessionUseLimits } from '../../projects/index.js';
import { generateRefreshToken, hashRefreshToken } from './refreshTokens.js';
import type { SessionDeps } from './sessionDeps.js';
import { endIdleSession } from './endIdleSession.js';
import { signSessionToken } from './signSessionToken.js';
import { revokeSession } from './revokeSession.js';
import type { RefreshTokenRecord } from '../store/sessions.js';

export interface RefreshSessionInput {
  projectId: string;
  refreshToken: string;
  /** The browser of the call (the gateway's address and User-Agent): the client of a session.revoked it causes. */
  client?: { clientAddress: string; userAgent: string };
}

export interface RefreshedSession {
  sessionToken: string;
  refreshToken: string;
  /** The new session token's `exp`, in seconds since the epoch. */
  expiresAt: number;
}

export async function refreshSession(deps: SessionDeps, input: RefreshSessionInput): Promise<RefreshedSession> {
  const project = await getProject(deps, input.projectId);
  const hash = hashRefreshToken(input.refreshToken);
  const now = deps.now();

  const keep = refreshRotationOf(project) === 'keep';
  // One guarded update spends the token: of two concurrent refreshes with it, only one gets here.
  // Kept tokens are only read: an active, unexpired one goes on to the session checks below.
  const spent = keep ? usable(await deps.sessions.findRefreshToken(project._id, hash), now) : await deps.sessions.rotateRefreshToken(project._id, hash, now);
  if (!spent) {
    const known = await deps.sessions.findRefreshToken(project._id, hash);
    // Guard: never issued in this project (or already swept away): nothing to trade in.
    if (!known) throw unauthenticated('invalid_refresh_token', 'the refresh token is not valid');
    if (known.status === 'rotated') {
      // Guard: reuse of a spent token ends the session for every holder.
      const reused = await deps.sessions.findSession(project._id, known.sessionId);
      if (reused) await revokeSession(deps, reused, 'refresh_token_reuse', input.client);
      deps.logger.warn({ projectId: project._id, sessionId: known.sessionId }, 'refresh token reused: session revoked');
      throw unauthenticated('refresh_token_reused', 'the refresh token was already used; the session has ended, sign in again');
    }
    // Active but past its expiry, which is the session's end.
    throw unauthenticated('session_ended', `the session ended at ${known.expiresAt.toISOString()}, sign in again`);
  }

  // Guard: the session must still be active and unexpired (a logout or a reuse ended it otherwise),
  // and under "keep" used recently enough and young enough.
  const session = await deps.sessions.touchSession(project._id, spent.sessionId, now, sessionUseLimits(project, now));
  if (!session) {
    await endIdleSession(deps, project, spent.sessionId, now);
    throw unauthenticated('session_ended', 'the session has ended (logged out, expired, idle or revoked), sign in again');
  }
  const user = await deps.users.find(project._id, session.userId);
  // Guard: a deleted or disabled user gets no new tokens; their session ends here (an event only
  // for a disabled user's: a deleted user's user.deleted says it all).
  if (!user || user.status === 'disabled') {
    if (user) await revokeSession(deps, session, 'user_unavailable', input.client);
    else await deps.sessions.revokeSession(project._id, session._id, 'user_unavailable', now);
    throw unauthenticated('session_ended', `the session's user is ${user ? 'disabled' : 'deleted'}, sign in again`);
  }

  const signed = await signSessionToken(deps, project, session, user);
  if (keep) return { sessionToken: signed.sessionToken, refreshToken: input.refreshToken, expiresAt: signed.expiresAt };
  const refreshToken = generateRefreshToken();
  await deps.sessions.insertRefreshToken({
    _id: hashRefreshToken(refreshToken),
    projectId: project._id,
    sessionId: session._id,
    status: 'active',
    createdAt: now,
    // The session's absolute end: rotating never extends it.
    expiresAt: session.expiresAt,
  });
  return { sessionToken: signed.sessionToken, refreshToken, expiresAt: signed.expiresAt };
}

/** The token if a refresh may use it now (what rotateRefreshToken's guard checks); else null. */
function usable(token: RefreshTokenRecord | null, now: Date): RefreshTokenRecord | null {
  return token && token.status === 'active' && token.expiresAt.getTime() > now.getTime() ? token : null;
}
