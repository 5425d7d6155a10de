/**
 * Backend API authentication: `Authorization: Basic base64(projectID:apiSecret)`, checked by the
 * connect service. Verified credentials are cached for a short time under a hash of the pair, so
 * the secret itself is not kept in memory longer than the request. Wrong credentials are counted
 * per source address: past the limit, that source gets 429 without the connect service being
 * asked, so nobody can guess API secrets at the speed of the network.
 */
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { createHash } from 'node:crypto';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { createTtlCache } from '../../../services/runtime/ttlCache.js';
import { PROJECT_ID } from '../../../services/runtime/wire.js';
import { HttpError } from '../errorResponse.js';

const CACHE_MS = 30_000;
const CHALLENGE = { 'www-authenticate': 'Basic realm="passkeyauth backend API", charset="UTF-8"' };

/** Wrong credentials one source may present per window (per gateway process). */
export interface FailedAuthLimit {
  points: number;
  durationSeconds: number;
}

export const DEFAULT_FAILED_AUTH_LIMIT: FailedAuthLimit = { points: 20, durationSeconds: 60 };

export class BasicAuthenticator {
  private readonly verified = createTtlCache<string>({ ttlMs: CACHE_MS, maxEntries: 10_000 });
  private readonly failures: RateLimiterMemory;

  constructor(
    private readonly projects: Client<typeof ProjectService>,
    failedAuthLimit: FailedAuthLimit = DEFAULT_FAILED_AUTH_LIMIT,
  ) {
    this.failures = new RateLimiterMemory({ points: failedAuthLimit.points, duration: failedAuthLimit.durationSeconds });
  }

  /** The project the credentials belong to; a 401 (or, after too many wrong ones from `source`, 429) HttpError otherwise. */
  async authenticate(header: string | undefined, requestId: string, source = ''): Promise<string> {
    const m = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header?.trim() ?? '');
    if (!m) throw new HttpError(401, { type: 'missing_credentials', details: 'use HTTP Basic authentication with the project ID and an API secret' }, CHALLENGE);
    const decoded = Buffer.from(m[1], 'base64').toString('utf8');
    const key = createHash('sha256').update(decoded).digest('hex');
    const hit = this.verified.get(key);
    if (hit) return hit;
    await this.refuseBlockedSource(source);
    const colon = decoded.indexOf(':');
    const projectId = colon > 0 ? decoded.slice(0, colon) : '';
    const apiSecret = colon > 0 ? decoded.slice(colon + 1) : '';
    if (!PROJECT_ID.test(projectId) || apiSecret.length === 0 || apiSecret.length > 256) {
      throw await this.wrongCredentials(source);
    }
    try {
      await this.projects.authenticateBackend({ projectId, apiSecret }, { headers: { 'x-request-id': requestId }, timeoutMs: 5000 });
    } catch (err) {
      const code = ConnectError.from(err).code;
      if (code === Code.Unauthenticated || code === Code.InvalidArgument || code === Code.NotFound) throw await this.wrongCredentials(source);
      throw err;
    }
    this.verified.set(key, projectId);
    return projectId;
  }

  private async refuseBlockedSource(source: string): Promise<void> {
    const state = await this.failures.get(source);
    if (state && state.consumedPoints >= this.failures.points) throw tooManyFailures(state.msBeforeNext);
  }

  /** Counts one wrong attempt of the source; the error to answer it with. */
  private async wrongCredentials(source: string): Promise<HttpError> {
    try {
      await this.failures.consume(source);
    } catch (res) {
      return tooManyFailures((res as { msBeforeNext: number }).msBeforeNext);
    }
    return new HttpError(401, { type: 'invalid_credentials', details: 'the project ID or API secret is wrong' }, CHALLENGE);
  }
}

function tooManyFailures(msBeforeNext: number): HttpError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new HttpError(429, { type: 'rate_limited', details: `too many wrong credentials from this address; retry in ${seconds} second(s)` }, { 'retry-after': String(seconds) });
}
