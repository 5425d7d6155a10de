/**
 * How long sessions last. The session token is short-lived (it is verified offline, so a logout
 * reaches offline verifiers only when it expires); the refresh lifetime bounds the whole session
 * from sign-in, however often it is refreshed. Both are per-project settings with these defaults
 * and bounds (`project session-settings`).
 */
import type { ProjectRecord, RefreshTokenRotation } from '../../projects/store/projects.js';

export const DEFAULT_SESSION_LIFETIME_SECONDS = 900;
export const MIN_SESSION_LIFETIME_SECONDS = 60;
export const MAX_SESSION_LIFETIME_SECONDS = 86_400;

export const DEFAULT_REFRESH_LIFETIME_SECONDS = 30 * 86_400;
export const MIN_REFRESH_LIFETIME_SECONDS = 3_600;
export const MAX_REFRESH_LIFETIME_SECONDS = 31_536_000;

export function sessionLifetimeOf(project: Pick<ProjectRecord, 'sessionLifetimeSeconds'>): number {
  return project.sessionLifetimeSeconds ?? DEFAULT_SESSION_LIFETIME_SECONDS;
}

export function refreshLifetimeOf(project: Pick<ProjectRecord, 'refreshLifetimeSeconds'>): number {
  return project.refreshLifetimeSeconds ?? DEFAULT_REFRESH_LIFETIME_SECONDS;
}

/**
 * Whether a refresh spends the presented refresh token ("rotate", the default: a copied token is
 * noticed when both holders use it) or keeps it ("keep": for clients that never store the token a
 * refresh returns, as the published web SDKs web-core 2.x and 3.x do, which a rotating project logs
 * out at their second refresh). Set with `project session-settings --refresh-rotation`.
 */
export function refreshRotationOf(project: Pick<ProjectRecord, 'refreshTokenRotation'>): RefreshTokenRotation {
  return project.refreshTokenRotation ?? 'rotate';
}
