/**
 * /v2/me/logout: ends the session named by a session token's `sid` or by a refresh token. Its
 * refresh tokens stop working and /v2/me/* refuse its session tokens at once (offline verifiers
 * accept them until they expire, which is why they are short-lived). Idempotent: an unknown or
 * already ended session is not an error, so a logout can always be retried.
 */
import { hashRefreshToken } from './refreshTokens.js';
import type { SessionDeps } from './sessionDeps.js';

export interface EndSessionInput {
  projectId: string;
  sessionId?: string;
  refreshToken?: string;
}

export async function endSession(deps: Pick<SessionDeps, 'sessions' | 'now'>, input: EndSessionInput): Promise<void> {
  let sessionId = input.sessionId;
  if (!sessionId && input.refreshToken) {
    // Any refresh token of the session names it, even a rotated one: logging out is never refused.
    sessionId = (await deps.sessions.findRefreshToken(input.projectId, hashRefreshToken(input.refreshToken)))?.sessionId;
  }
  if (!sessionId) return;
  await deps.sessions.revokeSession(input.projectId, sessionId, 'logout', deps.now());
}
