import type { ProjectStore } from '../store/projects.js';

/** Where a project's APIs are reachable; read from configuration, stored on each project at creation. */
export interface ProjectUrlConfig {
  /** FRONTEND_API_URL, possibly with the literal `{projectID}` (e.g. `https://{projectID}.auth.example.com`). */
  frontendApiUrl: string;
  /** BACKEND_API_URL. */
  backendApiUrl: string;
}

export const DEFAULT_PROJECT_URLS: ProjectUrlConfig = {
  frontendApiUrl: 'http://localhost:8080',
  backendApiUrl: 'http://localhost:8081',
};

export interface ProjectDeps {
  projects: ProjectStore;
  /** MASTER_KEY (32 bytes): seals the projects' private signing keys. */
  masterKey: Buffer;
  urls: ProjectUrlConfig;
  now: () => Date;
}
