/**
 * Session tokens after a connect passkey login (F9): a session of the sessions module without a
 * refresh token (the application's own session takes over from there), so the token carries a
 * `sid` like every session token and logout or /v2/me/* can name it. Claims: see
 * sessions/domain/signSessionToken.ts; `name` is the one the login chose (full name, else the
 * identifier the user logged in with). `known`: the project (as its signer), user and identifiers F9
 * has read already, so the session does not read them again (startSession.ts).
 */
import { startSession, type KnownSessionFacts } from '../../sessions/index.js';
import type { ConnectFlowDeps } from './flowDeps.js';

export async function issueSession(deps: ConnectFlowDeps, projectId: string, user: { id: string; name: string }, known?: KnownSessionFacts): Promise<string> {
  const started = await startSession(deps, { projectId, userId: user.id, withRefreshToken: false, name: user.name, ...(known ? { known } : {}) });
  return started.sessionToken;
}
