/**
 * The connect service owns projects and users and holds the projects' signing keys; these adapters
 * ask it over RPC, with the project in the x-passkeyauth-project-id header.
 */
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { HEADERS } from '../../runtime/context.js';
import { DomainError, notFound } from '../../runtime/errors.js';
import type { PasskeyDataSigner, ProjectDirectory, ProjectInfo, UserDirectory } from './domain/deps.js';
import type { UserVerificationPolicy } from './store/sessions.js';

const TIMEOUT_MS = 5000;
/** signedPasskeyData lives five minutes, the most the connect service signs. */
export const SIGNED_PASSKEY_DATA_LIFETIME_SECONDS = 300;

const callOptions = (projectId: string) => ({ headers: { [HEADERS.projectId]: projectId }, timeoutMs: TIMEOUT_MS });

function unavailable(what: string, err: unknown): DomainError {
  return new DomainError('unavailable', 'dependency_unavailable', `the ${what} is not reachable`, [], { cause: err });
}

const POLICIES: readonly string[] = ['required', 'preferred', 'discouraged'];

export interface ProjectCacheOptions {
  /** How long a project's RP facts are reused (default 30 s): origin or RP changes apply within it. */
  ttlMs?: number;
  /** At most this many projects are cached; the oldest entry goes first. */
  maxEntries?: number;
  now?: () => number;
}

export function rpcProjectDirectory(projects: Client<typeof ProjectService>, opts: ProjectCacheOptions = {}): ProjectDirectory {
  const ttlMs = opts.ttlMs ?? 30_000;
  const maxEntries = opts.maxEntries ?? 1000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { info: ProjectInfo; expires: number }>();
  return {
    async get(projectId) {
      const hit = cache.get(projectId);
      if (hit && hit.expires > now()) return hit.info;
      let res;
      try {
        res = await projects.getProjectPublicInfo({ projectId }, callOptions(projectId));
      } catch (err) {
        if (ConnectError.from(err).code === Code.NotFound) throw notFound('project_not_found', `project ${projectId} does not exist`);
        throw unavailable('project directory', err);
      }
      const info: ProjectInfo = {
        projectId: res.projectId,
        rpId: res.rpId,
        rpName: res.rpName,
        origins: [...res.origins],
        // Required is the default policy; an unknown value is treated as the strictest.
        userVerification: (POLICIES.includes(res.userVerification) ? res.userVerification : 'required') as UserVerificationPolicy,
        frontendApiUrl: res.frontendApiUrl,
      };
      cache.delete(projectId);
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(projectId, { info, expires: now() + ttlMs });
      return info;
    },
  };
}

export function rpcUserDirectory(users: Client<typeof UserService>): UserDirectory {
  return {
    async find(projectId, userId) {
      try {
        const { user } = await users.getUser({ userId }, callOptions(projectId));
        if (!user) return null;
        return {
          userId: user.userId,
          ...(user.fullName ? { fullName: user.fullName } : {}),
          ...(user.explicitWebauthnId ? { explicitWebauthnId: user.explicitWebauthnId } : {}),
        };
      } catch (err) {
        if (ConnectError.from(err).code === Code.NotFound) return null;
        throw unavailable('user directory', err);
      }
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
