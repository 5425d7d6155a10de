/**
 * After a use of a session was refused by touchSession's guards: if the session is still marked
 * active but went unused past the project's idle timeout (refresh rotation "keep"), mark it ended
 * for inactivity, so the backend API reports it as `inactivity_reached` and no later use, even
 * after a settings change, revives it. Any other refusal (logged out, revoked, expired) is left as it is.
 */
import { sessionUseLimits, type ProjectRecord } from '../../projects/index.js';
import type { SessionDeps } from './sessionDeps.js';

export async function endIdleSession(deps: Pick<SessionDeps, 'sessions'>, project: ProjectRecord, sessionId: string, now: Date): Promise<void> {
  const { usedAfter } = sessionUseLimits(project, now);
  if (!usedAfter) return;
  const session = await deps.sessions.findSession(project._id, sessionId);
  if (session?.status === 'active' && session.lastUsedAt.getTime() <= usedAfter.getTime()) {
    await deps.sessions.revokeSession(project._id, sessionId, 'inactivity', now);
  }
}
