/** Asks the connect service whether any project allows an origin; answers are cached for a minute. */
import type { Client } from '@connectrpc/connect';
import type { ProjectService } from '../../gen/passkeyauth/connect/v1/project_service_pb.js';

const TTL_MS = 60_000;

export function originChecker(projects: Client<typeof ProjectService>): (origin: string, requestId: string) => Promise<boolean> {
  const cache = new Map<string, { allowed: boolean; until: number }>();
  return async (origin, requestId) => {
    const hit = cache.get(origin);
    if (hit && hit.until > Date.now()) return hit.allowed;
    const { allowed } = await projects.isOriginAllowed({ origin }, { headers: { 'x-request-id': requestId }, timeoutMs: 5000 });
    if (cache.size > 10_000) cache.clear();
    cache.set(origin, { allowed, until: Date.now() + TTL_MS });
    return allowed;
  };
}
