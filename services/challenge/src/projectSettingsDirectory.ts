/** Project settings from the connect service over RPC, cached briefly (settings change rarely). */
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import type { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { DomainError, notFound } from '../../runtime/errors.js';
import { createTtlCache } from '../../runtime/ttlCache.js';
import type { ProjectSettings, ProjectSettingsSource } from './domain/projectSettings.js';

const TTL_MS = 30_000;
const MAX_ENTRIES = 1000;

export function rpcProjectSettings(projects: Client<typeof ProjectService>): ProjectSettingsSource {
  const cache = createTtlCache<ProjectSettings>({ ttlMs: TTL_MS, maxEntries: MAX_ENTRIES });
  return {
    async get(projectId) {
      const hit = cache.get(projectId);
      if (hit) return hit;
      let info;
      try {
        info = await projects.getProjectPublicInfo({ projectId }, { timeoutMs: 5000 });
      } catch (err) {
        if (ConnectError.from(err).code === Code.NotFound) throw notFound('project_not_found', `project ${projectId} does not exist`);
        throw new DomainError('unavailable', 'dependency_unavailable', 'the project directory is not reachable', [], { cause: err });
      }
      const settings: ProjectSettings = {
        projectId,
        appName: info.appName,
        origins: [...info.origins],
        challengeDelivery: info.challengeDelivery === 'service' ? 'service' : 'app',
        maxChallengeAttempts: info.maxChallengeAttempts > 0 ? info.maxChallengeAttempts : 5,
        emailLinkUrl: info.emailLinkUrl,
      };
      cache.set(projectId, settings);
      return settings;
    },
  };
}
