/** Sets a project's passkey settings (the clone detection policy); logins from then on follow it. */
import { notFound } from '../../../../runtime/errors.js';
import type { ProjectRecord } from '../store/projects.js';
import { checkCloneDetection } from './cloneDetection.js';
import type { ProjectDeps } from './projectDeps.js';

export async function updatePasskeySettings(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string, settings: { cloneDetection?: string }): Promise<ProjectRecord> {
  const cloneDetection = checkCloneDetection(settings.cloneDetection);
  const updated = await deps.projects.updatePasskeySettings(projectId, { cloneDetection }, deps.now());
  if (!updated) throw notFound('project_not_found', `project ${projectId} does not exist`);
  return updated;
}
