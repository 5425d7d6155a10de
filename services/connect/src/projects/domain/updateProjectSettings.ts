/**
 * Updates of one group of a project's settings each (`project passkey-settings`, `event-settings`,
 * `self-service-settings`): the value is checked by its rule, and an unknown project is not_found.
 */
import { notFound } from '../../../../runtime/errors.js';
import type { ProjectRecord } from '../store/projects.js';
import { checkCloneDetection } from './cloneDetection.js';
import { checkEventRetentionDays } from './eventRetention.js';
import type { ProjectDeps } from './projectDeps.js';
import { checkSelfServiceFlows } from './selfServiceFlows.js';

/** Sets a project's passkey settings (the clone detection policy); logins from then on follow it. */
export async function updatePasskeySettings(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string, settings: { cloneDetection?: string }): Promise<ProjectRecord> {
  const cloneDetection = checkCloneDetection(settings.cloneDetection);
  const updated = await deps.projects.updatePasskeySettings(projectId, { cloneDetection }, deps.now());
  if (!updated) throw notFound('project_not_found', `project ${projectId} does not exist`);
  return updated;
}

/** Sets how long a project's ceremony events are kept; events recorded from then on expire after it. */
export async function updateEventSettings(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string, settings: { eventRetentionDays?: number }): Promise<ProjectRecord> {
  const eventRetentionDays = checkEventRetentionDays(settings.eventRetentionDays);
  const updated = await deps.projects.updateEventSettings(projectId, { eventRetentionDays }, deps.now());
  if (!updated) throw notFound('project_not_found', `project ${projectId} does not exist`);
  return updated;
}

/** Without a value it only reads the project (the CLI then shows the current setting). */
export async function updateSelfServiceFlows(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string, value: string | undefined): Promise<ProjectRecord> {
  const selfServiceFlows = checkSelfServiceFlows(value);
  const updated = selfServiceFlows === undefined ? await deps.projects.find(projectId) : await deps.projects.updateSelfServiceFlows(projectId, selfServiceFlows, deps.now());
  if (!updated) throw notFound('project_not_found', `project ${projectId} does not exist`);
  return updated;
}
