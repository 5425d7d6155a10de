/** INDEX_HEADER projects */
export { sharedCookieDomainProblem } from './domain/checkSharedCookieDomain.js';
export { getProject } from './domain/getProject.js';
export type { ProjectDeps } from './domain/projectDeps.js';
export { requireSelfServiceFlows } from './domain/selfServiceFlows.js';
export { MAX_KEEP_IDLE_TIMEOUT_SECONDS, MAX_KEEP_MAX_LIFETIME_SECONDS, MAX_REAUTH_WINDOW_SECONDS, MAX_REFRESH_LIFETIME_SECONDS, MAX_SESSION_LIFETIME_SECONDS, MIN_KEEP_IDLE_TIMEOUT_SECONDS, MIN_KEEP_MAX_LIFETIME_SECONDS, MIN_REAUTH_WINDOW_SECONDS, MIN_REFRESH_LIFETIME_SECONDS, MIN_SESSION_LIFETIME_SECONDS, keepMaxLifetimeOf, reauthWindowOf, refreshLifetimeOf, refreshRotationOf, sessionLifetimeOf, sessionUseLimits } from './domain/sessionLifetimes.js';
export { signToken } from './domain/signToken.js';
export { verifyProjectToken } from './domain/verifyProjectToken.js';
export type { ConnectRollout, ProjectRecord, RefreshTokenRotation } from './store/projects.js';
