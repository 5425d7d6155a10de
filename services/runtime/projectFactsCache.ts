/**
 * The one cache of what the connect service says about a project (GetProjectPublicInfo): its
 * origins, keys, relying party and challenge settings. The gateway, the ceremony service and the
 * challenge service each keep one, holding the facts already mapped to what that process needs
 * (`select`); none asks connect per request.
 *
 * A project that does not exist is remembered as well: unauthenticated callers choose the project
 * IDs the gateway looks up (X-Corbado-ProjectID, the host, a token's aud), and each miss would
 * otherwise be an RPC. Both are bounded by `maxEntries` (see ttlCache.ts).
 */
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import type { GetProjectPublicInfoResponse, ProjectService } from '../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { HEADERS } from './context.js';
import { createTtlCache } from './ttlCache.js';

export type ProjectFacts = GetProjectPublicInfoResponse;

export interface ProjectFactsCacheOptions<T> {
  /** What the caller keeps of the facts; run once per fetch, not per lookup. */
  select: (facts: ProjectFacts) => T;
  /** How long facts (and misses) are reused: a change to a project applies within it. */
  ttlMs: number;
  maxEntries: number;
  /** A refresh within this time of the last fetch answers from the cache (default 10 s). */
  refreshCooldownMs?: number;
  now?: () => number;
}

export interface ProjectFactsCache<T> {
  /**
   * What `select` kept of the project's facts, or null when it does not exist. Rejects with the RPC's error when the
   * connect service does not answer; callers map that to their own "unavailable".
   */
  get(projectId: string, requestId?: string): Promise<T | null>;
  /** Asks again (after a key rotation, say) unless it asked within the cooldown. */
  refresh(projectId: string, requestId?: string): Promise<T | null>;
  /** Projects (found or not) remembered now. */
  readonly size: number;
}

const TIMEOUT_MS = 5000;
const DEFAULT_REFRESH_COOLDOWN_MS = 10_000;

export function createProjectFactsCache<T>(projects: Client<typeof ProjectService>, opts: ProjectFactsCacheOptions<T>): ProjectFactsCache<T> {
  const now = opts.now ?? (() => Date.now());
  const cooldown = opts.refreshCooldownMs ?? DEFAULT_REFRESH_COOLDOWN_MS;
  const cache = createTtlCache<{ value: T | null; fetched: number }>({ ttlMs: opts.ttlMs, maxEntries: opts.maxEntries, now });

  async function fetch(projectId: string, requestId: string | undefined): Promise<T | null> {
    const headers: Record<string, string> = { [HEADERS.projectId]: projectId };
    if (requestId) headers[HEADERS.requestId] = requestId;
    let value: T | null;
    try {
      value = opts.select(await projects.getProjectPublicInfo({ projectId }, { headers, timeoutMs: TIMEOUT_MS }));
    } catch (err) {
      if (ConnectError.from(err).code !== Code.NotFound) throw err;
      value = null;
    }
    cache.set(projectId, { value, fetched: now() });
    return value;
  }

  return {
    async get(projectId, requestId) {
      const hit = cache.get(projectId);
      return hit ? hit.value : fetch(projectId, requestId);
    },
    async refresh(projectId, requestId) {
      const hit = cache.get(projectId);
      if (hit && now() - hit.fetched < cooldown) return hit.value;
      return fetch(projectId, requestId);
    },
    get size() {
      return cache.size;
    },
  };
}
