/**
 * Session tokens after a passkey login: ES256 JWTs of kind "session" with `sub` (the user ID) and
 * `name`, which is what the published Node SDK's validateToken reads; they authorize /v2/me/*.
 */
import { getProject } from '../getProject.js';
import { signToken } from '../signToken.js';
import type { ConnectFlowDeps } from './flowDeps.js';

export const DEFAULT_SESSION_LIFETIME_SECONDS = 900;

export async function issueSession(deps: ConnectFlowDeps, projectId: string, user: { id: string; name: string }): Promise<string> {
  const project = await getProject(deps, projectId);
  const lifetime = project.sessionLifetimeSeconds ?? DEFAULT_SESSION_LIFETIME_SECONDS;
  return signToken(deps, projectId, { kind: 'session', sub: user.id, name: user.name }, { expiresIn: lifetime });
}
