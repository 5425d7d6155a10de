/**
 * Invitations for a gradual roll-out: with the project's connect roll-out set to "invited", only
 * clients that present a valid invitation (the web SDK keeps one from setInvitation()) get the
 * connect flows. An invitation is an ES256 JWT of kind "invitation" signed with the project's key,
 * so checking one (isValidInvitation) needs no lookup; it is issued by the project CLI (`invite`).
 */
import { type ProjectDeps, signToken, verifyProjectToken } from '../../projects/index.js';
import { MAX_INVITATION_DAYS } from '../../shared/domain/limits.js';

export async function issueInvitation(deps: Pick<ProjectDeps, 'projects' | 'masterKey' | 'now'>, projectId: string, days: number): Promise<{ invitationToken: string; expiresAt: number }> {
  if (!Number.isInteger(days) || days < 1 || days > MAX_INVITATION_DAYS) throw new Error(`days must be 1 to ${MAX_INVITATION_DAYS}, got ${days}`);
  const lifetime = days * 86_400;
  const invitationToken = await signToken(deps, projectId, { kind: 'invitation', sub: projectId }, { expiresIn: lifetime });
  return { invitationToken, expiresAt: Math.floor(deps.now().getTime() / 1000) + lifetime };
}

/** Whether the token is a valid, unexpired invitation of this project ("" is none). */
export async function isValidInvitation(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string, token: string): Promise<boolean> {
  if (!token) return false;
  return (await verifyProjectToken(deps, projectId, token, 'invitation')) !== null;
}
