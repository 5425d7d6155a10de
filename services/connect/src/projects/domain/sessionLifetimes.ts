/**
 * How long sessions last. The session token is short-lived (it is verified offline, so a logout
 * reaches offline verifiers only when it expires); the refresh lifetime bounds the whole session
 * from sign-in, however often it is refreshed. Both are per-project settings with these defaults
 * and bounds (`project session-settings`).
 */
import type { ProjectRecord, RefreshTokenRotation } from '../store/projects.js';

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

/**
 * How recent the user's last proof (the session's authentication time, `auth_time`) must be for
 * the sensitive /v2/me/* actions: deleting the account, adding a passkey, adding or changing an
 * identifier. Set with `project session-settings --reauth-window`.
 */
export const DEFAULT_REAUTH_WINDOW_SECONDS = 900;
export const MIN_REAUTH_WINDOW_SECONDS = 60;
export const MAX_REAUTH_WINDOW_SECONDS = 86_400;

export function reauthWindowOf(project: Pick<ProjectRecord, 'reauthWindowSeconds'>): number {
  return project.reauthWindowSeconds ?? DEFAULT_REAUTH_WINDOW_SECONDS;
}

/**
 * Under refresh rotation "keep" the refresh token never changes, so a copy works as long as the
 * session does and nothing notices it. Two limits bound that: the session ends when it went unused
 * (no refresh, no /v2/me/* call with the refresh token) for the idle timeout, and at the latest the
 * maximum lifetime after sign-in (or the refresh lifetime, if shorter). Set with
 * `project session-settings --keep-idle-timeout --keep-max-lifetime`. Rotating projects do not
 * need them: there a copy is noticed at the next refresh of either holder.
 */
export const DEFAULT_KEEP_IDLE_TIMEOUT_SECONDS = 3 * 86_400;
export const MIN_KEEP_IDLE_TIMEOUT_SECONDS = 300;
export const MAX_KEEP_IDLE_TIMEOUT_SECONDS = 30 * 86_400;

export const DEFAULT_KEEP_MAX_LIFETIME_SECONDS = 7 * 86_400;
export const MIN_KEEP_MAX_LIFETIME_SECONDS = 3_600;
export const MAX_KEEP_MAX_LIFETIME_SECONDS = 90 * 86_400;

export function keepIdleTimeoutOf(project: Pick<ProjectRecord, 'keepIdleTimeoutSeconds'>): number {
  return project.keepIdleTimeoutSeconds ?? DEFAULT_KEEP_IDLE_TIMEOUT_SECONDS;
}

export function keepMaxLifetimeOf(project: Pick<ProjectRecord, 'keepMaxLifetimeSeconds'>): number {
  return project.keepMaxLifetimeSeconds ?? DEFAULT_KEEP_MAX_LIFETIME_SECONDS;
}

/**
 * The guards a use of a session must pass under the project's rotation: under "keep", used within
 * the idle timeout and created within the maximum lifetime; under "rotate", none beyond active and
 * unexpired. What SessionStore.touchSession checks in its one guarded update.
 */
export function sessionUseLimits(
  project: Pick<ProjectRecord, 'refreshTokenRotation' | 'keepIdleTimeoutSeconds' | 'keepMaxLifetimeSeconds'>,
  now: Date,
): { usedAfter?: Date; createdAfter?: Date } {
  if (refreshRotationOf(project) !== 'keep') return {};
  return {
    usedAfter: new Date(now.getTime() - keepIdleTimeoutOf(project) * 1000),
    createdAfter: new Date(now.getTime() - keepMaxLifetimeOf(project) * 1000),
  };
}
