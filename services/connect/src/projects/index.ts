/**
 * projects (projects, their settings, API secrets and signing keys, ProjectService): what other
 * features may use: reading a project and its session settings, signing and verifying the
 * project's tokens (process tokens among them), the self-service gate.
 * Composed in server.ts from handlers/projectService.ts with ProjectDeps.
 */
export { getProject } from './domain/getProject.js';
export { openProjectSigner, type ProjectSigner } from './domain/openProjectSigner.js';
export { MAX_PASSKEY_DATA_LIFETIME_SECONDS, passkeyDataClaims } from './domain/signPasskeyData.js';
export type { ProjectDeps } from './domain/projectDeps.js';
export { readProcessToken, signProcessToken } from './domain/processTokens.js';
export { requireSelfServiceFlows } from './domain/selfServiceFlows.js';
export { keepMaxLifetimeOf, reauthWindowOf, refreshLifetimeOf, refreshRotationOf, sessionLifetimeOf, sessionUseLimits } from './domain/sessionLifetimes.js';
export { signToken } from './domain/signToken.js';
export { verifyProjectToken } from './domain/verifyProjectToken.js';
export type { ConnectRollout, ProjectRecord } from './store/projects.js';
