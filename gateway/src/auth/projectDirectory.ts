/**
 * What the gateway knows about projects (frontend URL, origins, public keys): the connect
 * service's facts from the shared cache (services/runtime/projectFactsCache.ts), refreshed on
 * demand when a token names an unknown key.
 */
import type { Client } from '@connectrpc/connect';
import type { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { createProjectFactsCache, type ProjectFacts, type ProjectFactsCache } from '../../../services/runtime/projectFactsCache.js';

export interface ProjectInfo {
  projectId: string;
  frontendApiUrl: string;
  origins: string[];
  keys: { kty: string; crv: string; x: string; y: string; kid: string; alg: string; use: string }[];
}

const TTL_MS = 60_000;
/** At most one forced refresh per project in this window, so bogus kids cannot hammer the connect service. */
const REFRESH_COOLDOWN_MS = 10_000;
/**
 * At most this many projects (known or not) are remembered: unauthenticated callers choose the
 * project IDs looked up (X-Corbado-ProjectID, the host, a token's aud), so an unbounded cache of
 * their misses would grow without limit.
 */
export const MAX_CACHED_PROJECTS = 10_000;

export class ProjectDirectory {
  private readonly cache: ProjectFactsCache<ProjectInfo>;

  constructor(projects: Client<typeof ProjectService>) {
    this.cache = createProjectFactsCache(projects, { select: infoOf, ttlMs: TTL_MS, maxEntries: MAX_CACHED_PROJECTS, refreshCooldownMs: REFRESH_COOLDOWN_MS });
  }

  /** The project, or null if it does not exist. */
  get(projectId: string, requestId: string): Promise<ProjectInfo | null> {
    return this.cache.get(projectId, requestId);
  }

  /** Fetches again (after a key rotation) unless that was done moments ago. */
  refresh(projectId: string, requestId: string): Promise<ProjectInfo | null> {
    return this.cache.refresh(projectId, requestId);
  }
}

function infoOf(facts: ProjectFacts): ProjectInfo {
  return { projectId: facts.projectId, frontendApiUrl: facts.frontendApiUrl, origins: facts.origins, keys: facts.keys.map((k) => ({ ...k })) };
}
