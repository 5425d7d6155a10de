import { notFound } from '../../../../runtime/errors.js';
import type { ProjectRecord } from '../store/projects.js';
import type { ProjectDeps } from './projectDeps.js';
import { isProjectId, normalizeOrigin } from './projectRules.js';

/** Allows one more origin for the project (no-op if it is already allowed); returns the updated project. */
export async function addOrigin(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string, origin: string): Promise<ProjectRecord> {
  const normalized = normalizeOrigin(origin);
  const updated = isProjectId(projectId) ? await deps.projects.addOrigin(projectId, normalized, deps.now()) : null;
  if (!updated) throw notFound('project_not_found', `project ${projectId} does not exist`);
  return updated;
}
