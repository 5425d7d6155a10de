/**
 * Backend API authentication: `Authorization: Basic base64(projectID:apiSecret)`, checked by the
 * connect service. Verified credentials are cached for a short time under a hash of the pair, so
 * the secret itself is not kept in memory longer than the request.
 */
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { createHash } from 'node:crypto';
import type { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { HttpError } from '../errorResponse.js';

const CACHE_MS = 30_000;
const CHALLENGE = { 'www-authenticate': 'Basic realm="passkeyauth backend API", charset="UTF-8"' };

export class BasicAuthenticator {
  private readonly verified = new Map<string, { projectId: string; until: number }>();

  constructor(private readonly projects: Client<typeof ProjectService>) {}

  /** The project the credentials belong to; a 401 HttpError otherwise. */
  async authenticate(header: string | undefined, requestId: string): Promise<string> {
    const m = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header?.trim() ?? '');
    if (!m) throw new HttpError(401, { type: 'missing_credentials', details: 'use HTTP Basic authentication with the project ID and an API secret' }, CHALLENGE);
    const decoded = Buffer.from(m[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const projectId = colon > 0 ? decoded.slice(0, colon) : '';
    const apiSecret = colon > 0 ? decoded.slice(colon + 1) : '';
    if (!/^pro-[0-9]{1,30}$/.test(projectId) || apiSecret.length === 0 || apiSecret.length > 256) {
      throw new HttpError(401, { type: 'invalid_credentials', details: 'the project ID or API secret is wrong' }, CHALLENGE);
    }
    const key = createHash('sha256').update(decoded).digest('hex');
    const hit = this.verified.get(key);
    if (hit && hit.until > Date.now()) return hit.projectId;
    try {
      await this.projects.authenticateBackend({ projectId, apiSecret }, { headers: { 'x-request-id': requestId }, timeoutMs: 5000 });
    } catch (err) {
      const code = ConnectError.from(err).code;
      if (code === Code.Unauthenticated || code === Code.InvalidArgument || code === Code.NotFound) {
        throw new HttpError(401, { type: 'invalid_credentials', details: 'the project ID or API secret is wrong' }, CHALLENGE);
      }
      throw err;
    }
    if (this.verified.size > 10_000) this.verified.clear();
    this.verified.set(key, { projectId, until: Date.now() + CACHE_MS });
    return projectId;
  }
}
