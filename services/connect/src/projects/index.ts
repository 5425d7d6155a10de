/** INDEX_HEADER projects */
export { getProject } from './domain/getProject.js';
export type { ProjectDeps } from './domain/projectDeps.js';
export { readProcessToken, signProcessToken } from './domain/processTokens.js';
export { requireSelfServiceFlows } from './domain/selfServiceFlows.js';
export { keepMaxLifetimeOf, reauthWindowOf, refreshLifetimeOf, refreshRotationOf, sessionLifetimeOf, sessionUseLimits } from './domain/sessionLifetimes.js';
export { signToken } from './domain/signToken.js';
export { verifyProjectToken } from './domain/verifyProjectToken.js';
export type { ConnectRollout, ProjectRecord } from './store/projects.js';
