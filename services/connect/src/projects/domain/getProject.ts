import { notFound } from '../../../../runtime/errors.js';
import type { ProjectRecord } from '../store/projects.js';
import type { ProjectDeps } from './projectDeps.js';
import { isProjectId } from './projectRules.js';

/** The project, or not_found `project_not_found` (also for IDs that cannot be project IDs). */
export async function getProject(deps: Pick<ProjectDeps, 'projects'>, projectId: string): Promise<ProjectRecord> {
  const project = isProjectId(projectId) ? await deps.projects.find(projectId) : null;
  if (!project) throw notFound('project_not_found', `project ${projectId} does not exist`);
  return project;
}
