/**
 * Session tokens after a passkey login: ES256 JWTs of kind "session" with `sub` (the user ID) and
 * `name`, which is what the published Node SDK's validateToken reads. They verify against the
 * project's JWKS like every token of the project.
 */
import { signToken } from '../signToken.js';
import type { ConnectFlowDeps } from './flowDeps.js';

export const SESSION_LIFETIME_SECONDS = 900;

export async function issueSession(deps: ConnectFlowDeps, projectId: string, user: { id: string; name: string }): Promise<string> {
  return signToken(deps, projectId, { kind: 'session', sub: user.id, name: user.name }, { expiresIn: SESSION_LIFETIME_SECONDS });
}
