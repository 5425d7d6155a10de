/** Asks the connect service whether any project allows an origin; answers are cached for a minute. */
import type { Client } from '@connectrpc/connect';
import type { ProjectService } from '../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { createTtlCache } from '../../services/runtime/ttlCache.js';

const TTL_MS = 60_000;
/** Callers choose the Origin header, so the answers kept are bounded. */
const MAX_ENTRIES = 10_000;

export function originChecker(projects: Client<typeof ProjectService>): (origin: string, requestId: string) => Promise<boolean> {
  const cache = createTtlCache<boolean>({ ttlMs: TTL_MS, maxEntries: MAX_ENTRIES });
  return async (origin, requestId) => {
    const hit = cache.get(origin);
    if (hit !== undefined) return hit;
    const { allowed } = await projects.isOriginAllowed({ origin }, { headers: { 'x-request-id': requestId }, timeoutMs: 5000 });
    cache.set(origin, allowed);
    return allowed;
  };
}
