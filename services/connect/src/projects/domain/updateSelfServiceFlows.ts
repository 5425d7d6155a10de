/** Turns a project's self-service sign-up/login flows on or off; the next /v2/auth/* call follows it. */
import { notFound } from '../../../../runtime/errors.js';
import type { ProjectRecord } from '../store/projects.js';
import type { ProjectDeps } from './projectDeps.js';
import { checkSelfServiceFlows } from './selfServiceFlows.js';

/** Without a value it only reads the project (the CLI then shows the current setting). */
export async function updateSelfServiceFlows(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string, value: string | undefined): Promise<ProjectRecord> {
  const selfServiceFlows = checkSelfServiceFlows(value);
  const updated = selfServiceFlows === undefined ? await deps.projects.find(projectId) : await deps.projects.updateSelfServiceFlows(projectId, selfServiceFlows, deps.now());
  if (!updated) throw notFound('project_not_found', `project ${projectId} does not exist`);
  return updated;
}
