/**
 * createGateway(deps): the two HTTP listeners (frontend API with CORS, backend API), built but
 * not listening. Each request passes through named steps (pipeline/): ops and docs → match the
 * route → authenticate (auth/, one authenticator per scheme) → decode and bound the body → call
 * the service → respond.
 */
import type { Transport } from '@connectrpc/connect';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Histogram, type Registry } from 'prom-client';
import { HEADERS } from '../../services/runtime/wire.js';
import type { Authenticator, Caller } from './auth/authenticator.js';
import type { BasicAuthenticator } from './auth/basicAuth.js';
import type { BearerAuthenticator } from './auth/bearerAuth.js';
import { createAuthenticators } from './auth/createAuthenticators.js';
import type { ProjectDirectory } from './auth/projectDirectory.js';
import { answerClientError } from './answerClientError.js';
import { createApiDocs, type ApiDocs } from './openapi/apiDocs.js';
import type { OpenApiOptions } from './openapi/buildOpenApi.js';
import { callService, internalHeaders } from './pipeline/callService.js';
import { clientAddress } from './pipeline/clientAddress.js';
import { decodeRequest } from './pipeline/decodeRequest.js';
import { findRoute } from './pipeline/findRoute.js';
import { answerPreflight } from './pipeline/preflight.js';
import { addCors, answerBody, respondError, sendJson } from './pipeline/respond.js';
import { isOpsPath, serveOps } from './pipeline/serveOps.js';
import type { AuthScheme, Listener, Route } from './routeTable.js';
import type { ServiceName } from './upstreams.js';

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
  const authenticators = createAuthenticators(deps.basic, deps.bearer, deps.directory);
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
        void handle(listener, req, res, deps, authenticators, duration, docs).catch((err) => {
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

async function handle(
  listener: Listener,
  req: IncomingMessage,
  res: ServerResponse,
  deps: GatewayDeps,
  authenticators: Record<AuthScheme, Authenticator>,
  duration: Histogram,
  docs: ApiDocs,
): Promise<void> {
  const started = process.hrtime.bigint();
  const runtime = () => Number(process.hrtime.bigint() - started) / 1e9;
  const given = req.headers[HEADERS.requestId];
  const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : `req-${randomUUID()}`;
  res.setHeader(HEADERS.requestId, requestId);
  const url = new URL(req.url ?? '/', 'http://gateway.invalid');
  const path = url.pathname;
  const method = req.method ?? 'GET';
  const origin = listener === 'frontend' && typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
  let routeLabel = 'unmatched';
  let caller: Caller | undefined;
  let status = 200;

  try {
    if (method === 'GET' && isOpsPath(path)) return await serveOps(path, res, deps);
    if (method === 'GET' && docs.handles(path)) return await docs.serve(listener, path, res);
    if (listener === 'frontend' && method === 'OPTIONS') {
      status = await answerPreflight(req, res, path, origin, requestId, deps);
      return;
    }
    const { route, params } = findRoute(deps.routes, listener, method, path);
    routeLabel = `${route.httpMethod} ${route.template}`;
    const source = clientAddress(req, deps.trustForwardedFor);
    caller = await authenticators[route.auth].authenticate(req, route, requestId, source);
    const message = await decodeRequest(req, method, url, route, params);
    const response = await callService(deps.upstreams, deps.upstreamTimeoutMs, route, internalHeaders(req, requestId, source, caller), message);
    if (route.noContent) {
      await addCors(req, res, origin, caller.project, requestId, deps.directory);
      res.writeHead(204).end();
      return;
    }
    const body = answerBody(route, response.message, requestId, runtime());
    await addCors(req, res, origin, caller.project, requestId, deps.directory);
    sendJson(res, 200, body);
  } catch (err) {
    status = await respondError(err, req, res, origin, caller?.project ?? null, requestId, deps, runtime);
  } finally {
    const seconds = runtime();
    if (routeLabel !== 'unmatched' || status !== 200) {
      duration.observe({ listener, route: routeLabel, status: String(status) }, seconds);
      deps.logger.info({ requestId, listener, method, path, route: routeLabel, status, projectId: caller?.projectId, ms: Math.round(seconds * 1000) }, 'request');
    }
  }
}
