/**
 * Operator access to projects, run directly against MongoDB through the same domain and store code
 * the service uses: openProjectAdmin for the store, ensureProject for the local launcher's demo
 * project, and (re-exported from commands/, one file per command) the `project` CLI's command table,
 * which project.ts, a thin wrapper, parses and runs.
 */
import { failedPrecondition } from '../../../runtime/errors.js';
import { connectStore, databaseNameOf, type Store } from '../../../runtime/mongo.js';
import { addOrigin } from '../projects/domain/origins.js';
import { createProject, type CreateProjectInput } from '../projects/domain/createProject.js';
import { selfServiceFlowsOf } from '../projects/domain/selfServiceFlows.js';
import { updateSelfServiceFlows } from '../projects/domain/updateProjectSettings.js';
import { issueClientKey } from '../projects/domain/issueClientKey.js';
import type { ProjectDeps } from '../projects/domain/projectDeps.js';
import { normalizeName, normalizeOrigins, normalizeRpId } from '../projects/domain/projectRules.js';
import { rotateSecret } from '../projects/domain/rotateSecret.js';
import { connectIndexes, prepareConnectStore } from '../store/indexes.js';
import { mongoProjectStore } from '../projects/store/projects.js';
import type { ProjectAdminConfig } from './projectAdminConfig.js';
import { projectCredentials, type ProjectCredentials } from './projectCredentials.js';

export { AdminConfigError, DEFAULT_MONGODB_URI, MASTER_KEY_FILE, projectAdminConfigFromEnv, REPO_ROOT, type ProjectAdminConfig } from './projectAdminConfig.js';
export type { ProjectCredentials } from './projectCredentials.js';
export { UsageError } from './commands/projectCommand.js';
export { parseProjectCommand, PROJECT_COMMANDS, USAGE, type ParsedCommand, type ProjectCommand, type ProjectCommandResult } from './commands/index.js';

export interface ProjectAdmin {
  deps: ProjectDeps;
  close(): Promise<void>;
}

/** Connects to the store (creating the connect service's indexes, as the service does at start-up). */
export async function openProjectAdmin(config: ProjectAdminConfig): Promise<ProjectAdmin> {
  const store: Store = await connectStore(config.mongodbUri, databaseNameOf(config.mongodbUri), connectIndexes, undefined, prepareConnectStore);
  return {
    deps: { projects: mongoProjectStore(store.db), masterKey: config.masterKey, urls: config.urls, now: () => new Date() },
    close: () => store.close(),
  };
}

/**
 * The project with this name, created if missing. An existing one gets any missing origins, the
 * input's self-service setting when it names one, and a fresh API secret that replaces all others: its previous secret was only ever written to the
 * credentials file this call's result overwrites, and revoking keeps repeated runs from piling up
 * secrets. A different RP ID is refused, because passkeys already registered are bound to the old one.
 */
export async function ensureProject(input: CreateProjectInput, deps: ProjectDeps): Promise<ProjectCredentials> {
  const existing = await deps.projects.findByName(normalizeName('name', input.name));
  if (!existing) {
    const created = await createProject(deps, input);
    return projectCredentials(created.project, created.apiSecret, created.clientKey);
  }
  const rpId = normalizeRpId(input.rpId);
  if (existing.rpId !== rpId) {
    throw failedPrecondition('project_rp_id_mismatch', `project "${existing.name}" (${existing._id}) has RP ID "${existing.rpId}", not "${rpId}"; create a project with another name`);
  }
  let project = existing;
  for (const origin of normalizeOrigins(input.origins)) {
    if (!project.origins.includes(origin)) project = await addOrigin(deps, project._id, origin);
  }
  if (input.selfServiceFlows !== undefined && selfServiceFlowsOf(project) !== input.selfServiceFlows) {
    project = await updateSelfServiceFlows(deps, project._id, input.selfServiceFlows);
  }
  const { apiSecret } = await rotateSecret(deps, project._id, { revokeOthers: true });
  return projectCredentials(project, apiSecret, await issueClientKey(deps, project._id));
}
