/** Project settings from the connect service's facts (the shared, briefly kept project cache). */
import type { Client } from '@connectrpc/connect';
import type { ProjectService } from '../../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { DomainError, notFound } from '../../../runtime/errors.js';
import { createProjectFactsCache, type ProjectFacts } from '../../../runtime/projectFactsCache.js';
import type { ProjectSettings, ProjectSettingsSource } from '../domain/projectSettings.js';

const TTL_MS = 30_000;
const MAX_ENTRIES = 1000;

export function rpcProjectSettings(projects: Client<typeof ProjectService>): ProjectSettingsSource {
  const cache = createProjectFactsCache(projects, { select: settingsOf, ttlMs: TTL_MS, maxEntries: MAX_ENTRIES });
  return {
    async get(projectId) {
      let settings;
      try {
        settings = await cache.get(projectId);
      } catch (err) {
        throw new DomainError('unavailable', 'dependency_unavailable', 'the project directory is not reachable', [], { cause: err });
      }
      if (!settings) throw notFound('project_not_found', `project ${projectId} does not exist`);
      return settings;
    },
  };
}

function settingsOf(info: ProjectFacts): ProjectSettings {
  return {
    projectId: info.projectId,
    appName: info.appName,
    origins: [...info.origins],
    challengeDelivery: info.challengeDelivery === 'service' ? 'service' : 'app',
    maxChallengeAttempts: info.maxChallengeAttempts > 0 ? info.maxChallengeAttempts : 5,
    emailLinkUrl: info.emailLinkUrl,
  };
}
