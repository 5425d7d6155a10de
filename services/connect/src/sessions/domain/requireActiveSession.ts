/**
 * The check /v2/me/* make on every request: the session token's signature and expiry were verified
 * by the gateway, but only the session record knows whether the session was ended since (logout,
 * refresh-token reuse). So a logged-out session's tokens stop working on our API at once.
 */
import { unauthenticated } from '../../../../runtime/errors.js';
import type { SessionRecord } from '../store/sessions.js';
import type { SessionDeps } from './sessionDeps.js';

export interface RequireActiveSessionInput {
  projectId: string;
  /** The token's `sid`; empty for a token without one, which names no session and is refused. */
  sessionId: string;
  /** The token's `sub`. */
  userId: string;
}

export async function requireActiveSession(deps: Pick<SessionDeps, 'sessions' | 'now'>, input: RequireActiveSessionInput): Promise<SessionRecord> {
  const session = input.sessionId ? await deps.sessions.findSession(input.projectId, input.sessionId) : null;
  // Guard: the session exists in this project (the query is scoped by it).
  if (!session) throw unauthenticated('session_ended', `no session ${input.sessionId || '(none named)'} in project ${input.projectId}; sign in again`);
  // Guard: the token's user is the session's user (a token naming someone else's session is forged or corrupt).
  if (session.userId !== input.userId) throw unauthenticated('session_ended', `session ${session._id} belongs to another user than ${input.userId}`);
  // Guard: ended by logout or a refresh-token reuse.
  if (session.status !== 'active') throw unauthenticated('session_ended', `session ${session._id} was ended (${session.revokeReason ?? 'revoked'}); sign in again`);
  // Guard: past its absolute end (TTL sweeps are lazy, so expiry is checked here).
  if (session.expiresAt.getTime() <= deps.now().getTime()) throw unauthenticated('session_ended', `session ${session._id} expired at ${session.expiresAt.toISOString()}; sign in again`);
  return session;
}
