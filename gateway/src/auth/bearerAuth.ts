/**
 * Frontend API authentication (docs/architecture.md, "Auth model"): ES256 JWTs signed with the
 * project's key and verified against its JWKS — client key, process token, session token — plus
 * the web SDK's compatibility headers X-Corbado-ProjectID (in place of a client key) and
 * x-corbado-process-id (the process token). The project may also come from the host name
 * `<projectID>.<frontend domain>`; every source must agree.
 */
import { createLocalJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { IncomingHttpHeaders } from 'node:http';
import { HEADERS, PROJECT_ID } from '../../../services/runtime/wire.js';
import { HttpError } from '../errorResponse.js';
import type { TokenKind } from '../routeTable.js';
import type { ProjectDirectory, ProjectInfo } from './projectDirectory.js';

export interface Principal {
  projectId: string;
  project: ProjectInfo;
  kind: TokenKind;
  /** Verified claims of the token, when a token was presented. */
  claims?: JWTPayload;
  /** A refresh token, passed on unverified: only the connect service can check it (by its hash). */
  refreshToken?: string;
}

/** Refresh tokens are opaque (not JWTs): "rt_" and 43 base64url characters. */
const REFRESH_TOKEN = /^rt_[A-Za-z0-9_-]{43}$/;

const BEARER_CHALLENGE = { 'www-authenticate': 'Bearer realm="passkeyauth frontend API"' };

const unauthorized = (type: string, details: string) =>
  new HttpError(401, { type, details }, { 'www-authenticate': `${BEARER_CHALLENGE['www-authenticate']}, error="invalid_token"` });

/** The project named by the host's first label (`pro-123.auth.example.com`), if any. */
export function projectFromHost(host: string | undefined): string | undefined {
  const label = (host ?? '').split('.')[0];
  return PROJECT_ID.test(label) && (host ?? '').includes('.') ? label : undefined;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Internal headers that tell the services who called (built from verified claims only, never
 * copied from the client): the token kind, the process and its family (process tokens) or user and session
 * (session tokens) the token names, or the refresh token for the connect service to check.
 */
export function identityHeaders(principal: Principal | undefined): Record<string, string> {
  if (!principal) return {};
  const out: Record<string, string> = { [HEADERS.tokenKind]: principal.kind };
  const sub = typeof principal.claims?.sub === 'string' ? principal.claims.sub : undefined;
  if (sub && principal.kind === 'process') out[HEADERS.processId] = sub;
  // Which flows the process belongs to (connect: projects/domain/processTokens.ts); absent in tokens signed before the claim existed.
  const family = principal.claims?.family;
  if (principal.kind === 'process' && (family === 'auth' || family === 'connect')) out[HEADERS.processFamily] = family;
  if (sub && principal.kind === 'session') out[HEADERS.userId] = sub;
  const sid = principal.claims?.sid;
  if (typeof sid === 'string' && principal.kind === 'session') out[HEADERS.sessionId] = sid;
  if (principal.kind === 'refresh' && principal.refreshToken) out[HEADERS.refreshToken] = principal.refreshToken;
  return out;
}

export class BearerAuthenticator {
  constructor(private readonly directory: ProjectDirectory) {}

  async authenticate(headers: IncomingHttpHeaders, accepted: TokenKind[], requestId: string): Promise<Principal> {
    const hostProject = projectFromHost(header(headers, 'host'));
    const authorization = header(headers, 'authorization');
    const bearer = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '')?.[1];
    const processHeader = header(headers, 'x-corbado-process-id');
    const projectHeader = header(headers, 'x-corbado-projectid');

    // X-Corbado-ProjectID beside a token must name the token's project, like the host does.
    const namedProject = hostProject ?? (projectHeader && PROJECT_ID.test(projectHeader) ? projectHeader : undefined);
    if (hostProject && projectHeader && hostProject !== projectHeader) throw unauthorized('project_mismatch', 'the host and X-Corbado-ProjectID name different projects');
    if (bearer && accepted.includes('refresh') && REFRESH_TOKEN.test(bearer)) {
      // An opaque token names no project; the host or X-Corbado-ProjectID must.
      if (!namedProject) throw unauthorized('project_required', 'name the project (host or X-Corbado-ProjectID) with a refresh token');
      const project = await this.directory.get(namedProject, requestId);
      if (!project) throw unauthorized('invalid_project', 'unknown project');
      return { projectId: namedProject, project, kind: 'refresh', refreshToken: bearer };
    }
    if (bearer) return this.verifyToken(bearer, accepted, namedProject, requestId);
    if (processHeader && accepted.includes('process')) return this.verifyToken(processHeader, ['process'], namedProject, requestId);
    if (projectHeader && accepted.includes('client')) {
      if (!PROJECT_ID.test(projectHeader)) throw unauthorized('invalid_project', 'X-Corbado-ProjectID is not a project ID');
      if (hostProject && hostProject !== projectHeader) throw unauthorized('project_mismatch', 'the host and X-Corbado-ProjectID name different projects');
      const project = await this.directory.get(projectHeader, requestId);
      if (!project) throw unauthorized('invalid_project', 'unknown project');
      return { projectId: projectHeader, project, kind: 'client' };
    }
    throw new HttpError(401, { type: 'missing_credentials', details: `this endpoint needs a bearer token (${accepted.join(', ')})` }, BEARER_CHALLENGE);
  }

  private async verifyToken(token: string, accepted: TokenKind[], namedProject: string | undefined, requestId: string): Promise<Principal> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      throw unauthorized('invalid_token', 'the token is not a JWT');
    }
    // The audience names the project; the signature check below proves it.
    const projectId = Array.isArray(unverified.aud) ? unverified.aud[0] : unverified.aud;
    if (!projectId || !PROJECT_ID.test(projectId)) throw unauthorized('invalid_token', 'the token names no project');
    if (namedProject && namedProject !== projectId) throw unauthorized('project_mismatch', 'the token belongs to another project');
    let project = await this.directory.get(projectId, requestId);
    if (!project) throw unauthorized('invalid_token', 'the token belongs to no known project');
    let claims: JWTPayload;
    try {
      claims = await this.verifyWith(token, project);
    } catch (err) {
      if (!(err instanceof joseErrors.JWKSNoMatchingKey)) throw this.describe(err);
      // A key we have not seen: the project may have rotated keys since we cached them.
      project = await this.directory.refresh(projectId, requestId);
      if (!project) throw unauthorized('invalid_token', 'the token belongs to no known project');
      try {
        claims = await this.verifyWith(token, project);
      } catch (again) {
        throw this.describe(again);
      }
    }
    const kind = claims.kind as TokenKind;
    if (!accepted.includes(kind)) throw unauthorized('wrong_token_kind', `this endpoint accepts ${accepted.join(' or ')} tokens, not ${String(claims.kind)} tokens`);
    return { projectId, project, kind, claims };
  }

  private async verifyWith(token: string, project: ProjectInfo): Promise<JWTPayload> {
    const keys = createLocalJWKSet({ keys: project.keys });
    const { payload } = await jwtVerify(token, keys, { algorithms: ['ES256'], issuer: project.frontendApiUrl, audience: project.projectId });
    return payload;
  }

  private describe(err: unknown): HttpError {
    if (err instanceof joseErrors.JWTExpired) return unauthorized('token_expired', 'the token has expired');
    if (err instanceof joseErrors.JWTClaimValidationFailed) return unauthorized('invalid_token', `the token's ${err.claim} claim is not valid here`);
    return unauthorized('invalid_token', 'the token could not be verified');
  }
}
