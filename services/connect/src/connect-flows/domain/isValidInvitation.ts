/**
 * Checks an invitation of the gradual roll-out (issued by issueInvitation.ts): an ES256 JWT of kind
 * "invitation" signed with the project's key, so checking one needs no lookup.
 */
import { verifyProjectToken, type ProjectDeps } from '../../projects/index.js';

/** Whether the token is a valid, unexpired invitation of this project ("" is none). */
export async function isValidInvitation(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string, token: string): Promise<boolean> {
  if (!token) return false;
  return (await verifyProjectToken(deps, projectId, token, 'invitation')) !== null;
}
