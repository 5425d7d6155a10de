/**
 * Test doubles and fixtures for the gateway tests: a small in-memory ProjectService (the
 * connect service's answers the gateway depends on, with call counters), real ES256 project
 * keys and real signed tokens.
 */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, createRouterTransport, type Client, type ConnectRouter, type ServiceImpl } from '@connectrpc/connect';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { ErrorInfoSchema } from '../../gen/passkeyauth/common/v1/errors_pb.js';
import { ProjectService } from '../../gen/passkeyauth/connect/v1/project_service_pb.js';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: { kty: string; crv: string; x: string; y: string; kid: string; alg: string; use: string };
}

export async function newSigningKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return { kid, privateKey, publicJwk: { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y!, kid, alg: 'ES256', use: 'sig' } };
}

export interface FakeProject {
  projectId: string;
  frontendApiUrl: string;
  origins: string[];
  /** Public keys currently published; tests rotate them by replacing this array. */
  keys: SigningKey['publicJwk'][];
  apiSecret: string;
  useSessionManagement: boolean;
}

export interface RecordedCall {
  method: string;
  headers: Headers;
  request: unknown;
}

/** An in-memory stand-in for the connect service's ProjectService, counting calls per method. */
export class FakeProjectService {
  readonly projects = new Map<string, FakeProject>();
  readonly calls: RecordedCall[] = [];
  /** When set, every call fails with this error (e.g. the connect service is down). */
  failWith: ConnectError | null = null;

  add(project: FakeProject): FakeProject {
    this.projects.set(project.projectId, project);
    return project;
  }

  count(method: string): number {
    return this.calls.filter((c) => c.method === method).length;
  }

  private record(method: string, headers: Headers, request: unknown): void {
    this.calls.push({ method, headers, request });
    if (this.failWith) throw this.failWith;
  }

  private headerProject(headers: Headers): FakeProject {
    const id = headers.get('x-passkeyauth-project-id') ?? '';
    const project = this.projects.get(id);
    if (!project) {
      throw new ConnectError('project not found', Code.NotFound, undefined, [
        { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { type: 'project_not_found', details: `project ${id} does not exist` }) },
      ]);
    }
    return project;
  }

  /** The RPCs the gateway calls (it never asks the connect service to sign). */
  impl(): Partial<ServiceImpl<typeof ProjectService>> {
    return {
      authenticateBackend: (req, ctx) => {
        this.record('authenticateBackend', ctx.requestHeader, req);
        const project = this.projects.get(req.projectId);
        if (!project) throw new ConnectError('unknown project', Code.NotFound);
        if (project.apiSecret !== req.apiSecret) throw new ConnectError('wrong secret', Code.Unauthenticated);
        return { projectId: project.projectId };
      },
      getProjectPublicInfo: (req, ctx) => {
        this.record('getProjectPublicInfo', ctx.requestHeader, req);
        const project = this.projects.get(req.projectId);
        if (!project) throw new ConnectError('unknown project', Code.NotFound);
        return { projectId: project.projectId, frontendApiUrl: project.frontendApiUrl, origins: [...project.origins], keys: project.keys.map((k) => ({ ...k })) };
      },
      isOriginAllowed: (req, ctx) => {
        this.record('isOriginAllowed', ctx.requestHeader, req);
        return { allowed: [...this.projects.values()].some((p) => p.origins.includes(req.origin)) };
      },
      getJwks: (req, ctx) => {
        this.record('getJwks', ctx.requestHeader, req);
        return { keys: this.headerProject(ctx.requestHeader).keys.map((k) => ({ ...k })) };
      },
      getSessionConfig: (req, ctx) => {
        this.record('getSessionConfig', ctx.requestHeader, req);
        const project = this.headerProject(ctx.requestHeader);
        return { useSessionManagement: project.useSessionManagement, frontendApiUrl: project.frontendApiUrl };
      },
    };
  }

  routes(): (router: ConnectRouter) => void {
    return (router) => router.service(ProjectService, this.impl());
  }

  client(): Client<typeof ProjectService> {
    return createClient(ProjectService, createRouterTransport(this.routes()));
  }
}

export interface TokenOptions {
  key: SigningKey;
  aud?: string | string[];
  iss?: string;
  kind?: string;
  sub?: string;
  /** Seconds since the epoch; default: in five minutes. */
  exp?: number;
  iat?: number;
  extra?: JWTPayload;
  /** Override the header's kid (or drop it with null). */
  kid?: string | null;
}

/** A real ES256 token as the connect service would issue it. */
export async function signToken(opts: TokenOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = { ...(opts.extra ?? {}) };
  if (opts.kind !== undefined) payload.kind = opts.kind;
  const jwt = new SignJWT(payload)
    .setProtectedHeader(opts.kid === null ? { alg: 'ES256' } : { alg: 'ES256', kid: opts.kid ?? opts.key.kid })
    .setIssuedAt(opts.iat ?? now)
    .setExpirationTime(opts.exp ?? now + 300);
  if (opts.aud !== undefined) jwt.setAudience(opts.aud);
  if (opts.iss !== undefined) jwt.setIssuer(opts.iss);
  if (opts.sub !== undefined) jwt.setSubject(opts.sub);
  return jwt.sign(opts.key.privateKey);
}

export const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
