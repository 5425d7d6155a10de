/**
 * Operator commands on projects (create, list, rotate-secret, add-origin, connect-settings, invite, session-settings,
 * cookie-settings, event-settings, passkey-settings, self-service-settings, rotate-signing-key), run directly against
 * MongoDB through the same domain and store code the service uses. The `project` CLI is a thin
 * wrapper around runProjectCommand; the local launcher calls ensureProject to get a demo project.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { failedPrecondition } from '../../../runtime/errors.js';
import { parseMasterKey } from '../../../runtime/masterKey.js';
import { connectStore, databaseNameOf, type Store } from '../../../runtime/mongo.js';
import { addOrigin } from '../projects/domain/addOrigin.js';
import { createProject, type CreateProjectInput } from '../projects/domain/createProject.js';
import { CLONE_DETECTION_POLICIES, cloneDetectionOf } from '../projects/domain/cloneDetection.js';
import { updatePasskeySettings } from '../projects/domain/updatePasskeySettings.js';
import { SELF_SERVICE_SETTINGS, selfServiceFlowsOf } from '../projects/domain/selfServiceFlows.js';
import { updateSelfServiceFlows } from '../projects/domain/updateSelfServiceFlows.js';
import { eventRetentionDaysOf, MAX_EVENT_RETENTION_DAYS, MIN_EVENT_RETENTION_DAYS } from '../projects/domain/eventRetention.js';
import { issueClientKey } from '../projects/domain/issueClientKey.js';
import { listProjects, type ProjectSummary } from '../projects/domain/listProjects.js';
import { DEFAULT_PROJECT_URLS, type ProjectDeps, type ProjectUrlConfig } from '../projects/domain/projectDeps.js';
import { checkBaseUrl, frontendApiUrlFor, normalizeName, normalizeOrigins, normalizeRpId } from '../projects/domain/projectRules.js';
import { issueInvitation } from '../connect-flows/domain/issueInvitation.js';
import { rotateSecret } from '../projects/domain/rotateSecret.js';
import { rotateSigningKey } from '../projects/domain/rotateSigningKey.js';
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
} from '../sessions/domain/sessionLifetimes.js';
import { updateSessionSettings } from '../sessions/domain/updateSessionSettings.js';
import { updateCookieSettings } from '../sessions/domain/updateCookieSettings.js';
import { describeSessionCookie } from '../sessions/domain/describeSessionCookie.js';
import { parseConnectFlags, updateConnectSettings } from '../projects/domain/updateConnectSettings.js';
import { updateEventSettings } from '../projects/domain/updateEventSettings.js';
import { connectIndexes, prepareConnectStore } from '../store/indexes.js';
import { mongoProjectStore, type ProjectRecord, type RefreshTokenRotation } from '../projects/store/projects.js';

/** The repository root, where `.local/master.key` lives. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const DEFAULT_MONGODB_URI = 'mongodb://127.0.0.1:27017/passkeyauth';
export const MASTER_KEY_FILE = '.local/master.key';

/** A command line that cannot be run as given; the CLI prints the message and exits with 2. */
export class UsageError extends Error {}

/** Configuration needed to reach the store; a problem here is the environment's, not the arguments'. */
export class AdminConfigError extends Error {}

export interface ProjectAdminConfig {
  mongodbUri: string;
  masterKey: Buffer;
  urls: ProjectUrlConfig;
}

/**
 * Reads MONGODB_URI, MASTER_KEY (or else `.local/master.key`, 64 hex characters, as written by the
 * local launcher), FRONTEND_API_URL and BACKEND_API_URL, with the service's defaults.
 */
export function projectAdminConfigFromEnv(env: NodeJS.ProcessEnv = process.env, root = REPO_ROOT): ProjectAdminConfig {
  const urls: ProjectUrlConfig = {
    frontendApiUrl: env.FRONTEND_API_URL || DEFAULT_PROJECT_URLS.frontendApiUrl,
    backendApiUrl: env.BACKEND_API_URL || DEFAULT_PROJECT_URLS.backendApiUrl,
  };
  try {
    frontendApiUrlFor(urls.frontendApiUrl, 'pro-1');
    urls.backendApiUrl = checkBaseUrl('BACKEND_API_URL', urls.backendApiUrl);
  } catch (err) {
    throw new AdminConfigError((err as Error).message);
  }
  return { mongodbUri: env.MONGODB_URI || DEFAULT_MONGODB_URI, masterKey: loadMasterKey(env, root), urls };
}

function loadMasterKey(env: NodeJS.ProcessEnv, root: string): Buffer {
  if (env.MASTER_KEY) {
    try {
      return parseMasterKey(env.MASTER_KEY);
    } catch (err) {
      throw new AdminConfigError(`MASTER_KEY is not usable: ${(err as Error).message}`);
    }
  }
  const file = resolve(root, MASTER_KEY_FILE);
  if (!existsSync(file)) {
    throw new AdminConfigError(`no master key: set MASTER_KEY (32 bytes as 64 hex characters) or create ${file} (npm start writes one)`);
  }
  const hex = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new AdminConfigError(`${file} must contain exactly 64 hex characters (a 32-byte key)`);
  return Buffer.from(hex, 'hex');
}

export interface ProjectAdmin {
  deps: ProjectDeps;
  close(): Promise<void>;
}

/** Connects to the store (creating the connect service's indexes, as the service does at start-up). */
export async function openProjectAdmin(config: ProjectAdminConfig): Promise<ProjectAdmin> {
  const store: Store = await connectStore(config.mongodbUri, databaseNameOf(config.mongodbUri), connectIndexes, undefined, prepareConnectStore);
  return {
    deps: { projects: mongoProjectStore(store.db), masterKey: config.masterKey, urls: config.urls, now: () => new Date() },
    close: () => store.close(),
  };
}

/** What an app needs to use a project; printed by `create` and returned by ensureProject. */
export interface ProjectCredentials {
  projectID: string;
  apiSecret: string;
  clientKey: string;
  frontendApiUrl: string;
  backendApiUrl: string;
  rpID: string;
  origins: string[];
}

function credentials(project: ProjectRecord, apiSecret: string, clientKey: string): ProjectCredentials {
  return {
    projectID: project._id,
    apiSecret,
    clientKey,
    frontendApiUrl: project.frontendApiUrl,
    backendApiUrl: project.backendApiUrl,
    rpID: project.rpId,
    origins: [...project.origins],
  };
}

/**
 * The project with this name, created if missing. An existing one gets any missing origins, the
 * input's self-service setting when it names one, and a fresh API secret that replaces all others: its previous secret was only ever written to the
 * credentials file this call's result overwrites, and revoking keeps repeated runs from piling up
 * secrets. A different RP ID is refused, because passkeys already registered are bound to the old one.
 */
export async function ensureProject(input: CreateProjectInput, deps: ProjectDeps): Promise<ProjectCredentials> {
  const existing = await deps.projects.findByName(normalizeName('name', input.name));
  if (!existing) {
    const created = await createProject(deps, input);
    return credentials(created.project, created.apiSecret, created.clientKey);
  }
  const rpId = normalizeRpId(input.rpId);
  if (existing.rpId !== rpId) {
    throw failedPrecondition('project_rp_id_mismatch', `project "${existing.name}" (${existing._id}) has RP ID "${existing.rpId}", not "${rpId}"; create a project with another name`);
  }
  let project = existing;
  for (const origin of normalizeOrigins(input.origins)) {
    if (!project.origins.includes(origin)) project = await addOrigin(deps, project._id, origin);
  }
  if (input.selfServiceFlows !== undefined && selfServiceFlowsOf(project) !== input.selfServiceFlows) {
    project = await updateSelfServiceFlows(deps, project._id, input.selfServiceFlows);
  }
  const { apiSecret } = await rotateSecret(deps, project._id, { revokeOthers: true });
  return credentials(project, apiSecret, await issueClientKey(deps, project._id));
}

export const USAGE = `usage: npm run --silent project -- <command> [options]

commands:
  create --name NAME --rp-id RPID --origin URL [--origin URL …] [--rp-name NAME] [--app-name NAME]
         [--environment development|production] [--user-verification required|preferred|discouraged]
         [--challenge-delivery app|service] [--max-challenge-attempts N] [--email-link-url URL]
         [--event-retention-days N (${MIN_EVENT_RETENTION_DAYS}–${MAX_EVENT_RETENTION_DAYS})] [--clone-detection block|record]
         [--self-service enabled|disabled]
      creates a project (self-service sign-up/login off unless --self-service enabled, see
      self-service-settings); prints {projectID, apiSecret, clientKey, frontendApiUrl, backendApiUrl, rpID, origins}
      (the API secret is shown only here)
  list
      prints every project (no secrets)
  rotate-secret --project pro-… [--revoke-others]
      adds a fresh API secret (others stay valid unless --revoke-others); prints {projectID, apiSecret}
  add-origin --project pro-… --origin URL
      allows one more origin; prints {projectID, origins}
  connect-settings --project pro-… [--rollout everyone|invited|nobody] [--flag KEY=VALUE …] [--clear-flags]
      who may use the connect flows (default everyone; invited = only clients with an invitation)
      and the flags every connect init answer carries; prints {projectID, connectRollout, connectFlags}
  invite --project pro-… [--days N]
      issues an invitation token (default 30 days) for web SDK setInvitation(); prints {projectID, invitationToken, expiresAt}
  session-settings --project pro-… [--session-lifetime SECONDS (60–86400)] [--refresh-lifetime SECONDS (3600–31536000)]
                   [--refresh-rotation rotate|keep] [--reauth-window SECONDS (60–86400)]
                   [--keep-idle-timeout SECONDS (300–2592000)] [--keep-max-lifetime SECONDS (3600–7776000)]
      lifetime of session tokens (default 900) and of sessions with refresh tokens, from sign-in
      (default 2592000 = 30 days); whether a refresh spends the refresh token and returns a new one
      (rotate, the default) or keeps it (keep: for the published web SDKs, which never store a new
      one); how recent the sign-in must be to delete the account, add a passkey or add/change an
      identifier (default 900); under keep, how long an unused session lasts (default 259200 = 3 days)
      and how long any session lasts at most (default 604800 = 7 days); prints {projectID,
      sessionLifetimeSeconds, refreshLifetimeSeconds, refreshTokenRotation, reauthWindowSeconds,
      keepIdleTimeoutSeconds, keepMaxLifetimeSeconds}
  cookie-settings --project pro-… [--shared-domain DOMAIN | --host-only]
      the session cookie the web SDK sets (GET /v2/session-config): host-only by default; with
      --shared-domain it is shared with every name under DOMAIN, which must be the RP ID or a name
      under it, cover every origin, and every origin must be https; prints {projectID,
      sessionCookieDomain (null: host-only), secure}
  event-settings --project pro-… [--event-retention-days N (${MIN_EVENT_RETENTION_DAYS}–${MAX_EVENT_RETENTION_DAYS})]
      how long ceremony events (the audit trail) are kept before they expire (default 90 days;
      events recorded from then on use it); prints {projectID, eventRetentionDays}
  passkey-settings --project pro-… [--clone-detection block|record]
      what a passkey whose signature counter went backwards (a possible clone) may do afterwards:
      block (default: it never logs in again) or record (only that login is refused); prints
      {projectID, cloneDetection}
  self-service-settings --project pro-… [--self-service enabled|disabled]
      whether the project serves the self-service sign-up and login flows (/v2/auth/*, e.g. the
      @corbado/web-js auth UI): enabled, or disabled (the default, also for projects created before
      this setting existed), where every /v2/auth/* call gets 403 self_service_disabled. Keep it
      disabled for a project whose users sign in through the connect flows: self-service sign-up
      takes any email address unproven; prints {projectID, selfServiceFlows}
  rotate-signing-key --project pro-…
      publishes a new signing key at once; it signs tokens from activatesAt (15 minutes later, so
      every JWKS cache has it by then). Older keys stay in the JWKS until their last token expires
      (retiresAt). The client key is issued again with the new key (the old one works until its
      key retires); prints {projectID, kid, activatesAt, clientKey, retiring: [{kid, retiresAt}]}

environment: MONGODB_URI (default ${DEFAULT_MONGODB_URI}), MASTER_KEY (else ${MASTER_KEY_FILE}),
             FRONTEND_API_URL (default ${DEFAULT_PROJECT_URLS.frontendApiUrl}, may contain {projectID}),
             BACKEND_API_URL (default ${DEFAULT_PROJECT_URLS.backendApiUrl})`;

export const PROJECT_COMMANDS = ['create', 'list', 'rotate-secret', 'add-origin', 'connect-settings', 'invite', 'session-settings', 'cookie-settings', 'event-settings', 'passkey-settings', 'self-service-settings', 'rotate-signing-key'] as const;
export type ProjectCommand = (typeof PROJECT_COMMANDS)[number];

export type ProjectCommandResult =
  | ProjectCredentials
  | ProjectSummary[]
  | { projectID: string; apiSecret: string }
  | { projectID: string; origins: string[] }
  | { projectID: string; connectRollout: string; connectFlags: Record<string, string> }
  | { projectID: string; invitationToken: string; expiresAt: number }
  | {
      projectID: string;
      sessionLifetimeSeconds: number;
      refreshLifetimeSeconds: number;
      refreshTokenRotation: string;
      reauthWindowSeconds: number;
      keepIdleTimeoutSeconds: number;
      keepMaxLifetimeSeconds: number;
    }
  | { projectID: string; sessionCookieDomain: string | null; secure: boolean }
  | { projectID: string; eventRetentionDays: number }
  | { projectID: string; cloneDetection: string }
  | { projectID: string; selfServiceFlows: string }
  | { projectID: string; kid: string; activatesAt: string; clientKey: string; retiring: Array<{ kid: string; retiresAt: string }> };

/** A parsed command line: which command and its options, checked before the store is touched. */
export interface ParsedCommand {
  command: ProjectCommand;
  run(deps: ProjectDeps): Promise<ProjectCommandResult>;
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

function parse(args: string[], options: OptionSpec): OptionValues {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as OptionValues;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function required(values: OptionValues, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** An optional whole number of seconds within [min, max]. */
function seconds(values: OptionValues, name: string, min: number, max: number): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^[0-9]{1,9}$/.test(v) ? Number(v) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`--${name} must be a whole number of seconds from ${min} to ${max}`);
  return n;
}

/** The optional --clone-detection policy. */
function policy(values: OptionValues): string | undefined {
  const v = values['clone-detection'] as string | undefined;
  if (v !== undefined && !(CLONE_DETECTION_POLICIES as readonly string[]).includes(v)) throw new UsageError(`--clone-detection must be one of ${CLONE_DETECTION_POLICIES.join(', ')}`);
  return v;
}

/** The optional --self-service setting. */
function selfService(values: OptionValues): string | undefined {
  const v = values['self-service'] as string | undefined;
  if (v !== undefined && !(SELF_SERVICE_SETTINGS as readonly string[]).includes(v)) throw new UsageError(`--self-service must be one of ${SELF_SERVICE_SETTINGS.join(', ')}`);
  return v;
}

/** An optional whole number of days within [min, max]. */
function days(values: OptionValues, name: string, min: number, max: number): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^[0-9]{1,9}$/.test(v) ? Number(v) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`--${name} must be a whole number of days from ${min} to ${max}`);
  return n;
}

/** Parses argv (without node and script) into a runnable command; UsageError if it is malformed. */
export function parseProjectCommand(argv: readonly string[]): ParsedCommand {
  const [command, ...args] = argv;
  switch (command) {
    case 'create': {
      const v = parse(args, {
        name: { type: 'string' },
        'rp-id': { type: 'string' },
        origin: { type: 'string', multiple: true },
        'rp-name': { type: 'string' },
        'app-name': { type: 'string' },
        environment: { type: 'string' },
        'user-verification': { type: 'string' },
        'challenge-delivery': { type: 'string' },
        'max-challenge-attempts': { type: 'string' },
        'email-link-url': { type: 'string' },
        'event-retention-days': { type: 'string' },
        'clone-detection': { type: 'string' },
        'self-service': { type: 'string' },
      });
      const attempts = v['max-challenge-attempts'] as string | undefined;
      if (attempts !== undefined && !/^[0-9]{1,3}$/.test(attempts)) throw new UsageError('--max-challenge-attempts must be a whole number');
      const input: CreateProjectInput = {
        name: required(v, 'name'),
        rpId: required(v, 'rp-id'),
        origins: (v.origin as string[] | undefined) ?? [],
        rpName: v['rp-name'] as string | undefined,
        appName: v['app-name'] as string | undefined,
        environment: v.environment as string | undefined,
        userVerification: v['user-verification'] as string | undefined,
        challengeDelivery: v['challenge-delivery'] as string | undefined,
        maxChallengeAttempts: attempts === undefined ? undefined : Number(attempts),
        emailLinkUrl: v['email-link-url'] as string | undefined,
        eventRetentionDays: days(v, 'event-retention-days', MIN_EVENT_RETENTION_DAYS, MAX_EVENT_RETENTION_DAYS),
        cloneDetection: policy(v),
        selfServiceFlows: selfService(v),
      };
      if (input.origins.length === 0) throw new UsageError('--origin is required (repeat it for several origins)');
      return {
        command,
        async run(deps) {
          const created = await createProject(deps, input);
          return credentials(created.project, created.apiSecret, created.clientKey);
        },
      };
    }
    case 'list': {
      parse(args, {});
      return { command, run: (deps) => listProjects(deps) };
    }
    case 'rotate-secret': {
      const v = parse(args, { project: { type: 'string' }, 'revoke-others': { type: 'boolean' } });
      const projectId = required(v, 'project');
      return {
        command,
        async run(deps) {
          const r = await rotateSecret(deps, projectId, { revokeOthers: v['revoke-others'] === true });
          return { projectID: r.projectId, apiSecret: r.apiSecret };
        },
      };
    }
    case 'add-origin': {
      const v = parse(args, { project: { type: 'string' }, origin: { type: 'string' } });
      const projectId = required(v, 'project');
      const origin = required(v, 'origin');
      return {
        command,
        async run(deps) {
          const p = await addOrigin(deps, projectId, origin);
          return { projectID: p._id, origins: [...p.origins] };
        },
      };
    }
    case 'connect-settings': {
      const v = parse(args, { project: { type: 'string' }, rollout: { type: 'string' }, flag: { type: 'string', multiple: true }, 'clear-flags': { type: 'boolean' } });
      const projectId = required(v, 'project');
      const flagArgs = (v.flag as string[] | undefined) ?? [];
      const clear = v['clear-flags'] === true;
      if (clear && flagArgs.length) throw new UsageError('--clear-flags and --flag exclude each other');
      const flags = clear ? {} : flagArgs.length ? parseConnectFlags(flagArgs) : undefined;
      const rollout = v.rollout as string | undefined;
      return {
        command,
        async run(deps) {
          const p = await updateConnectSettings(deps, projectId, { rollout, flags });
          return { projectID: p._id, connectRollout: p.connectRollout ?? 'everyone', connectFlags: { ...(p.connectFlags ?? {}) } };
        },
      };
    }
    case 'invite': {
      const v = parse(args, { project: { type: 'string' }, days: { type: 'string' } });
      const projectId = required(v, 'project');
      const days = v.days === undefined ? 30 : Number(v.days);
      if (!Number.isInteger(days) || days < 1 || days > 365) throw new UsageError('--days must be a whole number from 1 to 365');
      return {
        command,
        async run(deps) {
          const r = await issueInvitation(deps, projectId, days);
          return { projectID: projectId, ...r };
        },
      };
    }
    case 'session-settings': {
      const v = parse(args, {
        project: { type: 'string' },
        'session-lifetime': { type: 'string' },
        'refresh-lifetime': { type: 'string' },
        'refresh-rotation': { type: 'string' },
        'reauth-window': { type: 'string' },
        'keep-idle-timeout': { type: 'string' },
        'keep-max-lifetime': { type: 'string' },
      });
      const projectId = required(v, 'project');
      const sessionLifetimeSeconds = seconds(v, 'session-lifetime', MIN_SESSION_LIFETIME_SECONDS, MAX_SESSION_LIFETIME_SECONDS);
      const refreshLifetimeSeconds = seconds(v, 'refresh-lifetime', MIN_REFRESH_LIFETIME_SECONDS, MAX_REFRESH_LIFETIME_SECONDS);
      const reauthWindowSeconds = seconds(v, 'reauth-window', MIN_REAUTH_WINDOW_SECONDS, MAX_REAUTH_WINDOW_SECONDS);
      const keepIdleTimeoutSeconds = seconds(v, 'keep-idle-timeout', MIN_KEEP_IDLE_TIMEOUT_SECONDS, MAX_KEEP_IDLE_TIMEOUT_SECONDS);
      const keepMaxLifetimeSeconds = seconds(v, 'keep-max-lifetime', MIN_KEEP_MAX_LIFETIME_SECONDS, MAX_KEEP_MAX_LIFETIME_SECONDS);
      const rotation = v['refresh-rotation'];
      if (rotation !== undefined && rotation !== 'rotate' && rotation !== 'keep') throw new UsageError('--refresh-rotation must be rotate or keep');
      const refreshTokenRotation: RefreshTokenRotation | undefined = rotation;
      return {
        command,
        async run(deps) {
          // Without options it only shows the current settings.
          const p = await updateSessionSettings(deps, projectId, {
            sessionLifetimeSeconds,
            refreshLifetimeSeconds,
            reauthWindowSeconds,
            keepIdleTimeoutSeconds,
            keepMaxLifetimeSeconds,
            ...(refreshTokenRotation ? { refreshTokenRotation } : {}),
          });
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
      };
    }
    case 'cookie-settings': {
      const v = parse(args, { project: { type: 'string' }, 'shared-domain': { type: 'string' }, 'host-only': { type: 'boolean' } });
      const projectId = required(v, 'project');
      const domain = v['shared-domain'] as string | undefined;
      if (domain !== undefined && v['host-only'] === true) throw new UsageError('--shared-domain and --host-only exclude each other');
      if (domain === '') throw new UsageError('--shared-domain needs a domain; use --host-only to remove it');
      const sharedDomain = v['host-only'] === true ? null : domain;
      return {
        command,
        async run(deps) {
          // Without options it only shows the current setting.
          const p = await updateCookieSettings(deps, projectId, { sharedDomain });
          const cookie = describeSessionCookie(p);
          return { projectID: p._id, sessionCookieDomain: cookie.domain || null, secure: cookie.secure };
        },
      };
    }
    case 'event-settings': {
      const v = parse(args, { project: { type: 'string' }, 'event-retention-days': { type: 'string' } });
      const projectId = required(v, 'project');
      const eventRetentionDays = days(v, 'event-retention-days', MIN_EVENT_RETENTION_DAYS, MAX_EVENT_RETENTION_DAYS);
      return {
        command,
        async run(deps) {
          // Without options it only shows the current setting.
          const p = await updateEventSettings(deps, projectId, { eventRetentionDays });
          return { projectID: p._id, eventRetentionDays: eventRetentionDaysOf(p) };
        },
      };
    }
    case 'passkey-settings': {
      const v = parse(args, { project: { type: 'string' }, 'clone-detection': { type: 'string' } });
      const projectId = required(v, 'project');
      const cloneDetection = policy(v);
      return {
        command,
        async run(deps) {
          // Without options it only shows the current setting.
          const p = await updatePasskeySettings(deps, projectId, { cloneDetection });
          return { projectID: p._id, cloneDetection: cloneDetectionOf(p) };
        },
      };
    }
    case 'self-service-settings': {
      const v = parse(args, { project: { type: 'string' }, 'self-service': { type: 'string' } });
      const projectId = required(v, 'project');
      const value = selfService(v);
      return {
        command,
        async run(deps) {
          // Without options it only shows the current setting.
          const p = await updateSelfServiceFlows(deps, projectId, value);
          return { projectID: p._id, selfServiceFlows: selfServiceFlowsOf(p) };
        },
      };
    }
    case 'rotate-signing-key': {
      const v = parse(args, { project: { type: 'string' } });
      const projectId = required(v, 'project');
      return {
        command,
        async run(deps) {
          const r = await rotateSigningKey(deps, projectId);
          return {
            projectID: r.projectId,
            kid: r.kid,
            activatesAt: r.activatesAt.toISOString(),
            clientKey: r.clientKey,
            retiring: r.retiring.map((k) => ({ kid: k.kid, retiresAt: k.retiresAt.toISOString() })),
          };
        },
      };
    }
    case undefined:
      throw new UsageError('a command is required');
    default:
      throw new UsageError(`unknown command "${command}"; expected one of ${PROJECT_COMMANDS.join(', ')}`);
  }
}
