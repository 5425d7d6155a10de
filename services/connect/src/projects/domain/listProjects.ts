import type { ProjectRecord } from '../store/projects.js';
import type { ProjectDeps } from './projectDeps.js';
import { selfServiceFlowsOf } from './selfServiceFlows.js';
import type { Environment } from '../store/projects.js';

/** A project as listed to operators: settings only, no secrets, hashes or key material. */
export interface ProjectSummary {
  projectID: string;
  name: string;
  rpID: string;
  rpName: string;
  origins: string[];
  appName: string;
  environment: Environment;
  frontendApiUrl: string;
  backendApiUrl: string;
  /** Whether /v2/auth/* (self-service sign-up/login) is served. */
  selfServiceFlows: 'enabled' | 'disabled';
  /** The custom frontend host name the application set (PUT /v2/projectConfig/cname), if any. */
  cname?: string;
  activeApiSecrets: number;
  createdAt: string;
  updatedAt: string;
}

export function summarizeProject(p: ProjectRecord): ProjectSummary {
  return {
    projectID: p._id,
    name: p.name,
    rpID: p.rpId,
    rpName: p.rpName,
    origins: [...p.origins],
    appName: p.appName,
    environment: p.environment,
    frontendApiUrl: p.frontendApiUrl,
    backendApiUrl: p.backendApiUrl,
    selfServiceFlows: selfServiceFlowsOf(p),
    ...(p.cname ? { cname: p.cname } : {}),
    activeApiSecrets: p.apiSecrets.length,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export async function listProjects(deps: Pick<ProjectDeps, 'projects'>): Promise<ProjectSummary[]> {
  return (await deps.projects.list()).map(summarizeProject);
}
