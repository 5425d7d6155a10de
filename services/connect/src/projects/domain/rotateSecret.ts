import { randomBytes } from 'node:crypto';
import { failedPrecondition } from '../../../../runtime/errors.js';
import { generateApiSecret, hashApiSecret } from './apiSecrets.js';
import { getProject } from './getProject.js';
import type { ProjectDeps } from './projectDeps.js';

/** Active secrets per project: enough for overlapping rotations, few enough to compare every one per request. */
export const MAX_API_SECRETS = 10;

/**
 * Adds a fresh API secret and returns it (shown once). Existing secrets stay valid, so deployments
 * can switch over without downtime, unless revokeOthers makes the new one the only one.
 */
export async function rotateSecret(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string, opts: { revokeOthers: boolean }): Promise<{ projectId: string; apiSecret: string }> {
  const project = await getProject(deps, projectId);
  const apiSecret = generateApiSecret();
  const now = deps.now();
  const updated = await deps.projects.addApiSecret(
    project._id,
    { id: randomBytes(8).toString('hex'), hash: hashApiSecret(apiSecret), createdAt: now },
    { replaceOthers: opts.revokeOthers, maxSecrets: MAX_API_SECRETS, now },
  );
  if (!updated) {
    // The project existed a moment ago, so the guard refused: it already has the maximum.
    await getProject(deps, projectId);
    throw failedPrecondition('too_many_api_secrets', `project ${projectId} already has ${MAX_API_SECRETS} active API secrets; rotate with revokeOthers to replace them`);
  }
  return { projectId: updated._id, apiSecret };
}
