import { unauthenticated } from '../../../../runtime/errors.js';
import type { ProjectDeps } from './projectDeps.js';
import { hashApiSecret, matchApiSecret } from './apiSecrets.js';
import { isProjectId } from './projectRules.js';

/** A hash no secret matches, compared against when the project is unknown. */
const NO_SECRET = hashApiSecret('no project has this secret');

/**
 * Checks backend credentials (HTTP Basic: project ID and API secret) and returns the project ID.
 * An unknown project and a wrong secret fail the same way, with the same message, after the same
 * work (the hash is computed and compared either way), so callers cannot probe for project IDs.
 */
export async function authenticateBackend(deps: Pick<ProjectDeps, 'projects'>, projectId: string, apiSecret: string): Promise<string> {
  const project = isProjectId(projectId) ? await deps.projects.find(projectId) : null;
  const hashes = project ? project.apiSecrets.map((s) => s.hash) : [NO_SECRET];
  const matched = matchApiSecret(apiSecret, hashes);
  if (!project || !matched) throw unauthenticated('invalid_credentials', 'the project ID or API secret is not valid');
  return project._id;
}
