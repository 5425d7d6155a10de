/**
 * Sets or removes a project's shared session cookie domain (`project cookie-settings`): with
 * `sharedDomain` the session config names that domain (checked by checkSharedCookieDomain.ts),
 * with null the cookie is host-only again (the default). Without either it only reads.
 */
import { failedPrecondition, invalidArgument } from '../../../../runtime/errors.js';
import { getProject } from './getProject.js';
import { sharedCookieDomainProblem } from './checkSharedCookieDomain.js';
import type { ProjectDeps } from './projectDeps.js';
import type { ProjectRecord } from '../store/projects.js';

export async function updateCookieSettings(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string, settings: { sharedDomain?: string | null }): Promise<ProjectRecord> {
  const project = await getProject(deps, projectId);
  if (settings.sharedDomain === undefined) return project;
  const domain = settings.sharedDomain === null ? null : settings.sharedDomain.trim().toLowerCase().replace(/\.$/, '');
  if (domain !== null) {
    const problem = sharedCookieDomainProblem(project, domain);
    if (problem) throw invalidArgument('validation_error', `sessionCookieDomain ${problem}`, [{ field: 'sessionCookieDomain', message: problem }]);
  }
  const updated = await deps.projects.updateSessionCookieDomain(project._id, domain, { rpId: project.rpId, origins: project.origins }, deps.now());
  // Guard: the origins changed between the check and the write; the caller checks again.
  if (!updated) throw failedPrecondition('project_changed', `project ${projectId} changed while its cookie domain was being set; try again`);
  return updated;
}
