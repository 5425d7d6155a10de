/**
 * createGateway(deps): the two HTTP listeners (frontend API with CORS, backend API), built but
 * not listening. Each request: request ID → route → authentication → JSON → RPC → JSON.
 */
import type { DescMethodUnary } from '@bufbuild/protobuf';
import type { Transport } from '@connectrpc/connect';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Histogram, type Registry } from 'prom-client';
import type { BasicAuthenticator } from './auth/basicAuth.js';
import { identityHeaders, projectFromHost, type BearerAuthenticator, type Principal } from './auth/bearerAuth.js';
import type { ProjectDirectory, ProjectInfo } from './auth/projectDirectory.js';
import { canonicalOrigin } from '../../services/runtime/canonicalOrigin.js';
import { answerClientError } from './answerClientError.js';
import { corsHeaders, preflightHeaders } from './cors.js';
import { errorRsp, fromConnectError, genericRsp, HttpError } from './errorResponse.js';
import { decodeMessage, encodeMessage, JsonShapeError, queryToJson } from './jsonCodec.js';
import { createApiDocs, type ApiDocs } from './openapi/apiDocs.js';
import type { OpenApiOptions } from './openapi/buildOpenApi.js';
import { declaresBody, readJsonBody } from './readBody.js';
import { matchRoute, type Listener, type Route } from './routeTable.js';
import { serviceNameOf, type ServiceName } from './upstreams.js';

export interface GatewayDeps {
  routes: Route[];
  upstreams: Record<ServiceName, Transport>;
  basic: BasicAuthenticator;
  bearer: BearerAuthenticator;
  directory: ProjectDirectory;
  /** Whether any project allows this origin (for preflights that name no project). */
  originAllowedAnywhere: (origin: string, requestId: string) => Promise<boolean>;
  logger: Logger;
  registry: Registry;
  ready: () => Promise<boolean>;
  /** Deadline for one call to a backing service. */
  upstreamTimeoutMs: number;
  /** Behind a trusted proxy (ingress): take the client address from X-Forwarded-For. */
  trustForwardedFor: boolean;
  /** Public URLs for the API reference (/openapi.json, /docs); optional. */
  openApi?: OpenApiOptions;
  /** Defaults to DEFAULT_CONNECTION_LIMITS. */
  limits?: ConnectionLimits;
}

/** How long a client may take to send its request, and how many connections a listener holds. */
export interface ConnectionLimits {
  /** Until the request's headers are complete. */
  headersTimeoutMs: number;
  /** Until the whole request, body included, is received (a body trickled byte by byte ends here). */
  requestTimeoutMs: number;
  maxConnections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 10_000 };

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export function createGateway(deps: GatewayDeps): Record<Listener, Server> {
  const duration = new Histogram({
    name: 'gateway_request_duration_seconds',
    help: 'Latency of gateway requests by listener, route and status',
    labelNames: ['listener', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [deps.registry],
  });
  const docs = createApiDocs(deps.routes, deps.openApi);
  const limits = deps.limits ?? DEFAULT_CONNECTION_LIMITS;
  const make = (listener: Listener) => {
    const server = createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        // Node checks both time-outs on this interval (30 s by default, which would let a slow
        // client keep its connection up to 30 s past them).
        connectionsCheckingInterval: Math.min(1000, limits.requestTimeoutMs),
      },
      (req, res) => {
        void handle(listener, req, res, deps, duration, docs).catch((err) => {
          deps.logger.error({ err }, 'unhandled gateway error');
          if (!res.headersSent) res.writeHead(500).end();
        });
      },
    );
    // Past the cap, new connections are closed at once, so a flood of idle or slow connections
    // cannot take every file descriptor.
    server.maxConnections = limits.maxConnections;
    server.on('clientError', answerClientError);
    return server;
  };
  return { frontend: make('frontend'), backend: make('backend') };
}

async function handle(listener: Listener, req: IncomingMessage, res: ServerResponse, deps: GatewayDeps, duration: Histogram, docs: ApiDocs): Promise<void> {
  const started = process.hrtime.bigint();
  const runtime = () => Number(process.hrtime.bigint() - started) / 1e9;
  const given = req.headers['x-request-id'];
  const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : `req-${randomUUID()}`;
  res.setHeader('x-request-id', requestId);
  const url = new URL(req.url ?? '/', 'http://gateway.invalid');
  const path = url.pathname;
  const method = req.method ?? 'GET';
  const origin = listener === 'frontend' && typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
  let routeLabel = 'unmatched';
  let projectId: string | undefined;
  let project: ProjectInfo | null = null;
  let principal: Principal | undefined;
  let status = 200;

  try {
    if (method === 'GET' && (path === '/healthz' || path === '/readyz' || path === '/metrics')) {
      return await serveOps(path, res, deps);
    }
    if (method === 'GET' && docs.handles(path)) return await docs.serve(listener, path, res);
    if (listener === 'frontend' && method === 'OPTIONS') {
      status = await preflight(req, res, path, origin, requestId, deps);
      return;
    }
    const match = matchRoute(deps.routes, listener, method, path);
    if (match.kind === 'not_found') throw new HttpError(404, { type: 'route_not_found', details: `there is no endpoint ${method} ${path}` });
    if (match.kind === 'method_not_allowed') {
      throw new HttpError(405, { type: 'method_not_allowed', details: `${path} does not accept ${method}` }, { allow: match.allowed.join(', ') });
    }
    const route = match.route;
    routeLabel = `${route.httpMethod} ${route.template}`;

    if (route.auth === 'basic') {
      projectId = await deps.basic.authenticate(req.headers.authorization, requestId, clientAddress(req, deps.trustForwardedFor));
    } else if (route.auth === 'bearer') {
      principal = await deps.bearer.authenticate(req.headers, route.tokenKinds, requestId);
      projectId = principal.projectId;
      project = principal.project;
    } else {
      const fromHost = projectFromHost(req.headers.host);
      const fromHeader = req.headers['x-corbado-projectid'] as string | undefined;
      if (fromHost && fromHeader && fromHost !== fromHeader) {
        throw new HttpError(400, { type: 'project_mismatch', details: 'the host and X-Corbado-ProjectID name different projects' });
      }
      const named = fromHost ?? fromHeader;
      if (!named || !/^pro-[0-9]{1,30}$/.test(named)) {
        throw new HttpError(400, { type: 'project_required', details: 'name the project in the host (<projectID>.<domain>) or the X-Corbado-ProjectID header' });
      }
      project = await deps.directory.get(named, requestId);
      if (!project) throw new HttpError(404, { type: 'project_not_found', details: `project ${named} does not exist` });
      projectId = named;
    }

    // A DELETE with a body is read like a POST (the SDK sends some as JSON); without one, from the query string.
    const json = BODY_METHODS.has(method) || (method === 'DELETE' && declaresBody(req)) ? await readJsonBody(req) : queryToJson(route.method.input, url.searchParams);
    // Path parameters win over body fields of the same name.
    for (const name of route.params) json[name] = match.params[name];
    const message = decodeMessage(route.method.input, json);

    const headers: Record<string, string> = {
      'x-request-id': requestId,
      'x-passkeyauth-client-address': clientAddress(req, deps.trustForwardedFor),
      ...identityHeaders(principal),
    };
    if (projectId) headers['x-passkeyauth-project-id'] = projectId;
    // Connect flows hand the browser's user agent to the ceremony insights; bounded, never required.
    const userAgent = req.headers['user-agent'];
    if (typeof userAgent === 'string' && userAgent) headers['x-passkeyauth-user-agent'] = userAgent.slice(0, 1024);
    const transport = deps.upstreams[serviceNameOf(route.service)];
    // buildRouteTable admits unary RPCs only.
    const response = await transport.unary(route.method as DescMethodUnary, undefined, deps.upstreamTimeoutMs, headers, message);

    if (route.noContent) {
      await addCors(req, res, origin, project, requestId, deps);
      res.writeHead(204).end();
      return;
    }
    let body: unknown;
    if (route.genericResponse) body = genericRsp(requestId, runtime());
    else if (route.responseBody) {
      const field = route.method.output.fields.find((f) => f.localName === route.responseBody || f.name === route.responseBody);
      if (!field || field.fieldKind !== 'message') throw new Error(`${routeLabel}: response_body "${route.responseBody}" is not a message field`);
      const inner = (response.message as Record<string, unknown>)[field.localName];
      body = inner ? encodeMessage(field.message, inner as never) : {};
    } else body = encodeMessage(route.method.output, response.message);
    await addCors(req, res, origin, project, requestId, deps);
    sendJson(res, 200, body);
  } catch (err) {
    const httpError =
      err instanceof HttpError
        ? err
        : err instanceof JsonShapeError
          ? new HttpError(400, { type: 'validation_error', details: err.summary, validation: err.problems })
          : fromConnectError(err);
    status = httpError.status;
    if (status >= 500) deps.logger.error({ requestId, err }, 'request failed');
    await addCors(req, res, origin, project, requestId, deps).catch(() => undefined);
    for (const [k, v] of Object.entries(httpError.headers)) res.setHeader(k, v);
    if (status === 413) res.setHeader('connection', 'close');
    sendJson(res, status, errorRsp(status, httpError.body, requestId, runtime()));
  } finally {
    const seconds = runtime();
    if (routeLabel !== 'unmatched' || status !== 200) {
      duration.observe({ listener, route: routeLabel, status: String(status) }, seconds);
      deps.logger.info({ requestId, listener, method, path, route: routeLabel, status, projectId, ms: Math.round(seconds * 1000) }, 'request');
    }
  }
}

/**
 * CORS headers on an answer (success or error) only for an origin, in its exact browser spelling,
 * that the request's own project allows: the project it authenticated as, else the one its host
 * or X-Corbado-ProjectID names. An answer that belongs to no project carries none.
 */
async function addCors(req: IncomingMessage, res: ServerResponse, origin: string | undefined, project: ProjectInfo | null, requestId: string, deps: GatewayDeps): Promise<void> {
  if (!origin || canonicalOrigin(origin) === null) return;
  const own = project ?? (await namedProject(req, requestId, deps));
  if (own?.origins.includes(origin)) for (const [k, v] of Object.entries(corsHeaders(origin))) res.setHeader(k, v);
}

/** The project a request names (host, else X-Corbado-ProjectID), or null. */
async function namedProject(req: IncomingMessage, requestId: string, deps: GatewayDeps): Promise<ProjectInfo | null> {
  const header = req.headers['x-corbado-projectid'];
  const named = projectFromHost(req.headers.host) ?? (typeof header === 'string' ? header : undefined);
  if (!named || !/^pro-[0-9]{1,30}$/.test(named)) return null;
  return deps.directory.get(named, requestId);
}

async function preflight(req: IncomingMessage, res: ServerResponse, path: string, origin: string | undefined, requestId: string, deps: GatewayDeps): Promise<number> {
  const methods = deps.routes.filter((r) => r.listener === 'frontend' && r.pattern.test(path)).map((r) => r.httpMethod);
  if (methods.length === 0) throw new HttpError(404, { type: 'route_not_found', details: `there is no endpoint at ${path}` });
  if (!origin) throw new HttpError(400, { type: 'cors_origin_missing', details: 'a preflight request needs an Origin header' });
  if (canonicalOrigin(origin) === null) throw new HttpError(403, { type: 'cors_origin_not_allowed', details: `origin ${origin} is not allowed by this project` });
  const hostProject = projectFromHost(req.headers.host);
  const allowed = hostProject
    ? ((await deps.directory.get(hostProject, requestId))?.origins.includes(origin) ?? false)
    : await deps.originAllowedAnywhere(origin, requestId);
  if (!allowed) throw new HttpError(403, { type: 'cors_origin_not_allowed', details: `origin ${origin} is not allowed by this project` });
  res.writeHead(204, preflightHeaders(origin, methods));
  res.end();
  return 204;
}

async function serveOps(path: string, res: ServerResponse, deps: GatewayDeps): Promise<void> {
  if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
  if (path === '/readyz') {
    const ok = await deps.ready().catch(() => false);
    return sendJson(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready' });
  }
  res.writeHead(200, { 'content-type': deps.registry.contentType });
  res.end(await deps.registry.metrics());
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(body));
}

/** The caller's address: the socket peer, or the left-most X-Forwarded-For entry behind a trusted proxy. */
function clientAddress(req: IncomingMessage, trustForwardedFor: boolean): string {
  const forwarded = req.headers['x-forwarded-for'];
  const first = typeof forwarded === 'string' ? forwarded.split(',')[0].trim() : '';
  const address = trustForwardedFor && first ? first : (req.socket.remoteAddress ?? '');
  return address.slice(0, 64);
}
