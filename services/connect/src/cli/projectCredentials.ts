import type { ProjectRecord } from '../projects/store/projects.js';

/** What an app needs to use a project; printed by `create` and returned by ensureProject. */
export interface ProjectCredentials {
  projectID: string;
  apiSecret: string;
  clientKey: string;
  frontendApiUrl: string;
  backendApiUrl: string;
  rpID: string;
  origins: string[];
}

/** The credentials of a project whose API secret and client key were just issued (never stored in clear). */
export function projectCredentials(project: ProjectRecord, apiSecret: string, clientKey: string): ProjectCredentials {
  return {
    projectID: project._id,
    apiSecret,
    clientKey,
    frontendApiUrl: project.frontendApiUrl,
    backendApiUrl: project.backendApiUrl,
    rpID: project.rpId,
    origins: [...project.origins],
  };
}
