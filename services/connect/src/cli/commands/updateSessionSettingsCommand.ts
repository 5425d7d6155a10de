import type { RefreshTokenRotation } from '../../projects/store/projects.js';
import {
  keepIdleTimeoutOf,
  keepMaxLifetimeOf,
  MAX_KEEP_IDLE_TIMEOUT_SECONDS,
  MAX_KEEP_MAX_LIFETIME_SECONDS,
  MAX_REAUTH_WINDOW_SECONDS,
  MAX_REFRESH_LIFETIME_SECONDS,
  MAX_SESSION_LIFETIME_SECONDS,
  MIN_KEEP_IDLE_TIMEOUT_SECONDS,
  MIN_KEEP_MAX_LIFETIME_SECONDS,
  MIN_REAUTH_WINDOW_SECONDS,
  MIN_REFRESH_LIFETIME_SECONDS,
  MIN_SESSION_LIFETIME_SECONDS,
  reauthWindowOf,
  refreshLifetimeOf,
  refreshRotationOf,
  sessionLifetimeOf,
} from '../../projects/domain/sessionLifetimes.js';
import { updateSessionSettings } from '../../projects/domain/updateSessionSettings.js';
import { requiredOption, secondsOption } from './checkOptions.js';
import { defineProjectCommand, UsageError } from './projectCommand.js';

export const updateSessionSettingsCommand = defineProjectCommand({
  name: 'session-settings',
  usage: `  session-settings --project pro-… [--session-lifetime SECONDS (60–86400)] [--refresh-lifetime SECONDS (3600–31536000)]
                   [--refresh-rotation rotate|keep] [--reauth-window SECONDS (60–86400)]
                   [--keep-idle-timeout SECONDS (300–2592000)] [--keep-max-lifetime SECONDS (3600–7776000)]
      lifetime of session tokens (default 900) and of sessions with refresh tokens, from sign-in
      (default 2592000 = 30 days); whether a refresh spends the refresh token and returns a new one
      (rotate, the default) or keeps it (keep: for the published web SDKs, which never store a new
      one); how recent the sign-in must be to delete the account, add a passkey or add/change an
      identifier (default 900); under keep, how long an unused session lasts (default 259200 = 3 days)
      and how long any session lasts at most (default 604800 = 7 days); prints {projectID,
      sessionLifetimeSeconds, refreshLifetimeSeconds, refreshTokenRotation, reauthWindowSeconds,
      keepIdleTimeoutSeconds, keepMaxLifetimeSeconds}`,
  options: {
    project: { type: 'string' },
    'session-lifetime': { type: 'string' },
    'refresh-lifetime': { type: 'string' },
    'refresh-rotation': { type: 'string' },
    'reauth-window': { type: 'string' },
    'keep-idle-timeout': { type: 'string' },
    'keep-max-lifetime': { type: 'string' },
  },
  parse(v) {
    const projectId = requiredOption(v, 'project');
    const sessionLifetimeSeconds = secondsOption(v, 'session-lifetime', MIN_SESSION_LIFETIME_SECONDS, MAX_SESSION_LIFETIME_SECONDS);
    const refreshLifetimeSeconds = secondsOption(v, 'refresh-lifetime', MIN_REFRESH_LIFETIME_SECONDS, MAX_REFRESH_LIFETIME_SECONDS);
    const reauthWindowSeconds = secondsOption(v, 'reauth-window', MIN_REAUTH_WINDOW_SECONDS, MAX_REAUTH_WINDOW_SECONDS);
    const keepIdleTimeoutSeconds = secondsOption(v, 'keep-idle-timeout', MIN_KEEP_IDLE_TIMEOUT_SECONDS, MAX_KEEP_IDLE_TIMEOUT_SECONDS);
    const keepMaxLifetimeSeconds = secondsOption(v, 'keep-max-lifetime', MIN_KEEP_MAX_LIFETIME_SECONDS, MAX_KEEP_MAX_LIFETIME_SECONDS);
    const rotation = v['refresh-rotation'];
    if (rotation !== undefined && rotation !== 'rotate' && rotation !== 'keep') throw new UsageError('--refresh-rotation must be rotate or keep');
    const refreshTokenRotation: RefreshTokenRotation | undefined = rotation;
    return {
      projectId,
      settings: {
        sessionLifetimeSeconds,
        refreshLifetimeSeconds,
        reauthWindowSeconds,
        keepIdleTimeoutSeconds,
        keepMaxLifetimeSeconds,
        ...(refreshTokenRotation ? { refreshTokenRotation } : {}),
      },
    };
  },
  async run(deps, { projectId, settings }) {
    // Without options it only shows the current settings.
    const p = await updateSessionSettings(deps, projectId, settings);
    return {
      projectID: p._id,
      sessionLifetimeSeconds: sessionLifetimeOf(p),
      refreshLifetimeSeconds: refreshLifetimeOf(p),
      refreshTokenRotation: refreshRotationOf(p),
      reauthWindowSeconds: reauthWindowOf(p),
      keepIdleTimeoutSeconds: keepIdleTimeoutOf(p),
      keepMaxLifetimeSeconds: keepMaxLifetimeOf(p),
    };
  },
});
