import type { ProjectDeps } from './projectDeps.js';
import { canonicalOrigin } from '../../../../runtime/canonicalOrigin.js';

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
