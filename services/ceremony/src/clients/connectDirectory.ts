/**
 * The connect service owns projects and users and holds the projects' signing keys; these adapters
 * ask it over RPC, with the project in the x-passkeyauth-project-id header.
 */
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { ProjectService } from '../../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { UserService } from '../../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { HEADERS } from '../../../runtime/context.js';
import { DomainError, notFound } from '../../../runtime/errors.js';
import { createProjectFactsCache, type ProjectFacts } from '../../../runtime/projectFactsCache.js';
import { createTtlCache } from '../../../runtime/ttlCache.js';
import { DEFAULT_EVENT_RETENTION_DAYS, type PasskeyDataSigner, type ProjectDirectory, type ProjectInfo, type UserDirectory, type UserInfo } from '../domain/deps.js';
import type { UserVerificationPolicy } from '../store/sessions.js';

const TIMEOUT_MS = 5000;
/** signedPasskeyData lives five minutes, the most the connect service signs. */
export const SIGNED_PASSKEY_DATA_LIFETIME_SECONDS = 300;

const callOptions = (projectId: string) => ({ headers: { [HEADERS.projectId]: projectId }, timeoutMs: TIMEOUT_MS });

function unavailable(what: string, err: unknown): DomainError {
  return new DomainError('unavailable', 'dependency_unavailable', `the ${what} is not reachable`, [], { cause: err });
}

const POLICIES: readonly string[] = ['required', 'preferred', 'discouraged'];

export interface ProjectCacheOptions {
  /**
   * How long a project's RP facts (or its absence) are reused (default 30 s): origin or RP
   * changes apply within it.
   */
  ttlMs?: number;
  /** At most this many projects are cached; the oldest entry goes first. */
  maxEntries?: number;
  now?: () => number;
}

export function rpcProjectDirectory(projects: Client<typeof ProjectService>, opts: ProjectCacheOptions = {}): ProjectDirectory {
  const cache = createProjectFactsCache(projects, { select: projectInfoOf, ttlMs: opts.ttlMs ?? 30_000, maxEntries: opts.maxEntries ?? 1000, now: opts.now });
  return {
    async get(projectId) {
      let info;
      try {
        info = await cache.get(projectId);
      } catch (err) {
        throw unavailable('project directory', err);
      }
      if (!info) throw notFound('project_not_found', `project ${projectId} does not exist`);
      return info;
    },
  };
}

function projectInfoOf(res: ProjectFacts): ProjectInfo {
  return {
    projectId: res.projectId,
    rpId: res.rpId,
    rpName: res.rpName,
    origins: [...res.origins],
    // Required is the default policy; an unknown value is treated as the strictest.
    userVerification: (POLICIES.includes(res.userVerification) ? res.userVerification : 'required') as UserVerificationPolicy,
    frontendApiUrl: res.frontendApiUrl,
    eventRetentionDays: res.eventRetentionDays > 0 ? res.eventRetentionDays : DEFAULT_EVENT_RETENTION_DAYS,
    // Block is the default; only an explicit "record" relaxes it.
    cloneDetection: res.cloneDetection === 'record' ? 'record' : 'block',
  };
}

/** How long a found user is remembered by default; see UserCacheOptions.ttlMs. */
export const USER_CACHE_TTL_MS = 60_000;

export interface UserCacheOptions {
  /**
   * How long a user found in the connect service is taken as existing, with its name (default
   * 60 s). The connect service deletes a user's passkeys here before it deletes the user, which
   * forgets the entry at once (forget); the TTL bounds what other replicas still believe.
   */
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

/**
 * Users live in the connect service. A ceremony needs to know the user exists (and its name for
 * a registration); asking on every login was one of three RPCs per login, so users found are
 * cached (not users missing: one may be created the next moment).
 */
export function rpcUserDirectory(users: Client<typeof UserService>, opts: UserCacheOptions = {}): UserDirectory {
  const cache = createTtlCache<UserInfo>({ ttlMs: opts.ttlMs ?? USER_CACHE_TTL_MS, maxEntries: opts.maxEntries ?? 100_000, now: opts.now });
  const keyOf = (projectId: string, userId: string) => `${projectId}/${userId}`;
  return {
    async find(projectId, userId) {
      const hit = cache.get(keyOf(projectId, userId));
      if (hit) return hit;
      try {
        const { user } = await users.getUser({ userId }, callOptions(projectId));
        if (!user) return null;
        const info: UserInfo = {
          userId: user.userId,
          ...(user.fullName ? { fullName: user.fullName } : {}),
          ...(user.explicitWebauthnId ? { explicitWebauthnId: user.explicitWebauthnId } : {}),
        };
        cache.set(keyOf(projectId, userId), info);
        return info;
      } catch (err) {
        if (ConnectError.from(err).code === Code.NotFound) return null;
        throw unavailable('user directory', err);
      }
    },
    forget(projectId, userId) {
      cache.forget(keyOf(projectId, userId));
    },
  };
}

export function rpcPasskeyDataSigner(projects: Client<typeof ProjectService>): PasskeyDataSigner {
  return {
    async sign(projectId, data) {
      try {
        const res = await projects.signPasskeyData(
          {
            passkeyData: {
              id: data.id,
              userId: data.userId,
              username: data.username,
              challengeId: data.challengeId,
              ceremonyType: data.ceremonyType,
              aaguidDetails: { ...data.aaguidDetails },
            },
            expiresInSeconds: SIGNED_PASSKEY_DATA_LIFETIME_SECONDS,
          },
          callOptions(projectId),
        );
        return res.signedPasskeyData;
      } catch (err) {
        throw unavailable('signing service', err);
      }
    },
  };
}
