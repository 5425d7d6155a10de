/**
 * Sets a project's session token lifetime, refresh (whole-session) lifetime, refresh token
 * rotation, re-authentication window and, for rotation "keep", the idle timeout and maximum
 * lifetime; new sessions and refreshes use them (the window and the "keep" limits apply to existing
 * sessions at their next use).
 */
import { invalidArgument, notFound } from '../../../../runtime/errors.js';
import { MAX_KEEP_IDLE_TIMEOUT_SECONDS, MAX_KEEP_MAX_LIFETIME_SECONDS, MAX_REAUTH_WINDOW_SECONDS, MAX_REFRESH_LIFETIME_SECONDS, MAX_SESSION_LIFETIME_SECONDS, MIN_KEEP_IDLE_TIMEOUT_SECONDS, MIN_KEEP_MAX_LIFETIME_SECONDS, MIN_REAUTH_WINDOW_SECONDS, MIN_REFRESH_LIFETIME_SECONDS, MIN_SESSION_LIFETIME_SECONDS } from './sessionLifetimes.js';
import type { ProjectDeps } from './projectDeps.js';
import type { ProjectRecord, RefreshTokenRotation } from '../store/projects.js';

export interface SessionSettingsInput {
  sessionLifetimeSeconds?: number;
  refreshLifetimeSeconds?: number;
  refreshTokenRotation?: RefreshTokenRotation;
  reauthWindowSeconds?: number;
  keepIdleTimeoutSeconds?: number;
  keepMaxLifetimeSeconds?: number;
}

function checkSeconds(field: string, value: number | undefined, min: number, max: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw invalidArgument('validation_error', `${field} must be a whole number of seconds from ${min} to ${max}, got ${value}`, [
      { field, message: `must be ${min}..${max}` },
    ]);
  }
}

export async function updateSessionSettings(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string, settings: SessionSettingsInput): Promise<ProjectRecord> {
  checkSeconds('sessionLifetimeSeconds', settings.sessionLifetimeSeconds, MIN_SESSION_LIFETIME_SECONDS, MAX_SESSION_LIFETIME_SECONDS);
  checkSeconds('refreshLifetimeSeconds', settings.refreshLifetimeSeconds, MIN_REFRESH_LIFETIME_SECONDS, MAX_REFRESH_LIFETIME_SECONDS);
  checkSeconds('reauthWindowSeconds', settings.reauthWindowSeconds, MIN_REAUTH_WINDOW_SECONDS, MAX_REAUTH_WINDOW_SECONDS);
  checkSeconds('keepIdleTimeoutSeconds', settings.keepIdleTimeoutSeconds, MIN_KEEP_IDLE_TIMEOUT_SECONDS, MAX_KEEP_IDLE_TIMEOUT_SECONDS);
  checkSeconds('keepMaxLifetimeSeconds', settings.keepMaxLifetimeSeconds, MIN_KEEP_MAX_LIFETIME_SECONDS, MAX_KEEP_MAX_LIFETIME_SECONDS);
  if (settings.refreshTokenRotation !== undefined && settings.refreshTokenRotation !== 'rotate' && settings.refreshTokenRotation !== 'keep') {
    throw invalidArgument('validation_error', `refreshTokenRotation must be "rotate" or "keep", got ${String(settings.refreshTokenRotation)}`, [
      { field: 'refreshTokenRotation', message: 'must be rotate or keep' },
    ]);
  }
  const updated = await deps.projects.updateSessionSettings(projectId, settings, deps.now());
  if (!updated) throw notFound('project_not_found', `project ${projectId} does not exist`);
  return updated;
}
