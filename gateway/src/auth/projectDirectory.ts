/**
 * What the gateway knows about projects (frontend URL, origins, public keys), fetched from the
 * connect service and cached briefly; refreshed on demand when a token names an unknown key.
 */
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import type { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';

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
  private readonly cache = new Map<string, { info: ProjectInfo | null; fetched: number }>();

  constructor(private readonly projects: Client<typeof ProjectService>) {}

  /** The project, or null if it does not exist. */
  async get(projectId: string, requestId: string): Promise<ProjectInfo | null> {
    const hit = this.cache.get(projectId);
    if (hit && Date.now() - hit.fetched < TTL_MS) return hit.info;
    return this.fetch(projectId, requestId);
  }

  /** Fetches again (after a key rotation) unless that was done moments ago. */
  async refresh(projectId: string, requestId: string): Promise<ProjectInfo | null> {
    const hit = this.cache.get(projectId);
    if (hit && Date.now() - hit.fetched < REFRESH_COOLDOWN_MS) return hit.info;
    return this.fetch(projectId, requestId);
  }

  private async fetch(projectId: string, requestId: string): Promise<ProjectInfo | null> {
    try {
      const r = await this.projects.getProjectPublicInfo({ projectId }, { headers: { 'x-request-id': requestId }, timeoutMs: 5000 });
      const info: ProjectInfo = { projectId: r.projectId, frontendApiUrl: r.frontendApiUrl, origins: r.origins, keys: r.keys.map((k) => ({ ...k })) };
      this.remember(projectId, info);
      return info;
    } catch (err) {
      if (ConnectError.from(err).code === Code.NotFound) {
        this.remember(projectId, null);
        return null;
      }
      throw err;
    }
  }

  private remember(projectId: string, info: ProjectInfo | null): void {
    if (this.cache.size >= MAX_CACHED_PROJECTS && !this.cache.has(projectId)) this.cache.clear();
    this.cache.set(projectId, { info, fetched: Date.now() });
  }
}
