/** Sets how long a project's ceremony events are kept; events recorded from then on expire after it. */
import { notFound } from '../../../../runtime/errors.js';
import type { ProjectRecord } from '../store/projects.js';
import { checkEventRetentionDays } from './eventRetention.js';
import type { ProjectDeps } from './projectDeps.js';

export async function updateEventSettings(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string, settings: { eventRetentionDays?: number }): Promise<ProjectRecord> {
  const eventRetentionDays = checkEventRetentionDays(settings.eventRetentionDays);
  const updated = await deps.projects.updateEventSettings(projectId, { eventRetentionDays }, deps.now());
  if (!updated) throw notFound('project_not_found', `project ${projectId} does not exist`);
  return updated;
}
