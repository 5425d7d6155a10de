/** The origins a project allows (the relying party's web pages), as the CLI adds them and CORS asks about them. */
import { canonicalOrigin } from '../../../../runtime/canonicalOrigin.js';
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

/**
 * Whether any project lists the origin, for CORS preflights that do not name a project. The answer
 * is a plain yes/no: a value that is not an origin at all is simply not allowed, not a bad request,
 * because browsers send whatever page they are on.
 */
export async function isOriginAllowed(deps: Pick<ProjectDeps, 'projects'>, origin: string): Promise<boolean> {
  // Only the exact spelling browsers send matches the (normalized) stored origins.
  const exact = canonicalOrigin(origin);
  return exact !== null && deps.projects.anyAllowsOrigin(exact);
}
