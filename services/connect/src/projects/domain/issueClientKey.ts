import type { ProjectDeps } from './projectDeps.js';
import { getProject } from './getProject.js';
import { signToken } from './signToken.js';

/**
 * The project's client key: a public, embeddable token that lets frontends start processes. It is
 * a non-expiring JWT whose `jti` is the project's clientKeyId, so it can be issued again at any
 * time and every issued copy names the same key.
 */
export async function issueClientKey(deps: Pick<ProjectDeps, 'projects' | 'masterKey' | 'now'>, projectId: string, options: { kid?: string } = {}): Promise<string> {
  const project = await getProject(deps, projectId);
  return signToken(deps, project._id, { kind: 'client', sub: project._id, jti: project.clientKeyId }, options);
}
