/**
 * How long sessions last. The session token is short-lived (it is verified offline, so a logout
 * reaches offline verifiers only when it expires); the refresh lifetime bounds the whole session
 * from sign-in, however often it is refreshed. Both are per-project settings with these defaults
 * and bounds (`project session-settings`).
 */
import type { ProjectRecord } from '../../projects/store/projects.js';

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
