/** Gateway process: reads env → builds the route table from the descriptors → serves both listeners → SIGTERM. */
import { ProjectService } from '../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { EnvReader } from '../../services/runtime/config.js';
import { handleShutdown, listen } from '../../services/runtime/lifecycle.js';
import { createLogger } from '../../services/runtime/logger.js';
import { createMetrics } from '../../services/runtime/metrics.js';
import { internalTokenSource, parseInternalAuthKeys } from '../../services/runtime/internalAuth.js';
import { serviceClient } from '../../services/runtime/rpcClient.js';
import { BasicAuthenticator } from './auth/basicAuth.js';
import { BearerAuthenticator } from './auth/bearerAuth.js';
import { ProjectDirectory } from './auth/projectDirectory.js';
import { discoverServices } from './discoverServices.js';
import { originChecker } from './originChecker.js';
import { buildRouteTable } from './routeTable.js';
import { createGateway, DEFAULT_CONNECTION_LIMITS } from './server.js';
import { createUpstreams } from './upstreams.js';

const env = new EnvReader();
const config = {
  // Shared key(s) proving the caller of every internal RPC (services/runtime/internalAuth.ts).
  internalAuthKeys: env.string('INTERNAL_AUTH_KEYS'),
  host: env.string('HOST', '127.0.0.1'),
  frontendPort: env.port('FRONTEND_PORT', 8080),
  backendPort: env.port('BACKEND_PORT', 8081),
  ceremonyUrl: env.url('CEREMONY_URL', 'http://127.0.0.1:7101'),
  challengeUrl: env.url('CHALLENGE_URL', 'http://127.0.0.1:7102'),
  connectUrl: env.url('CONNECT_URL', 'http://127.0.0.1:7103'),
  eventsUrl: env.url('EVENTS_URL', 'http://127.0.0.1:7104'),
  upstreamTimeoutMs: env.int('UPSTREAM_TIMEOUT_MS', 10_000, 100, 120_000),
  drainMs: env.int('SHUTDOWN_DRAIN_MS', 2000, 0, 60_000),
  trustForwardedFor: env.string('TRUST_FORWARDED_FOR', 'false') === 'true',
  // Public base URLs, listed as servers in the API reference (/openapi.json); optional.
  frontendApiUrl: env.optional('FRONTEND_API_URL'),
  backendApiUrl: env.optional('BACKEND_API_URL'),
  limits: {
    headersTimeoutMs: env.int('HEADERS_TIMEOUT_SECONDS', DEFAULT_CONNECTION_LIMITS.headersTimeoutMs / 1000, 1, 600) * 1000,
    requestTimeoutMs: env.int('REQUEST_TIMEOUT_SECONDS', DEFAULT_CONNECTION_LIMITS.requestTimeoutMs / 1000, 1, 3600) * 1000,
    maxConnections: env.int('MAX_CONNECTIONS', DEFAULT_CONNECTION_LIMITS.maxConnections, 1, 1_000_000),
  },
};
const logger = createLogger('gateway');
try {
  env.done();
  const internalAuth = parseInternalAuthKeys(config.internalAuthKeys);
  const callerToken = internalTokenSource(internalAuth, 'gateway');
  const routes = buildRouteTable(await discoverServices());
  const projects = serviceClient(ProjectService, config.connectUrl, callerToken);
  const directory = new ProjectDirectory(projects);
  const metrics = createMetrics('gateway');
  let accepting = true;
  const servers = createGateway({
    routes,
    upstreams: createUpstreams({ ceremony: config.ceremonyUrl, challenge: config.challengeUrl, connect: config.connectUrl, events: config.eventsUrl }, callerToken),
    basic: new BasicAuthenticator(projects),
    bearer: new BearerAuthenticator(directory),
    directory,
    originAllowedAnywhere: originChecker(projects),
    logger,
    registry: metrics.registry,
    ready: async () => accepting,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    trustForwardedFor: config.trustForwardedFor,
    openApi: { servers: { frontend: config.frontendApiUrl, backend: config.backendApiUrl } },
    limits: config.limits,
  });
  const frontendPort = await listen(servers.frontend, config.frontendPort, config.host);
  const backendPort = await listen(servers.backend, config.backendPort, config.host);
  logger.info({ frontendPort, backendPort, routes: routes.length }, `gateway listening: frontend http://${config.host}:${frontendPort}, backend http://${config.host}:${backendPort}`);
  handleShutdown({
    logger,
    servers: [servers.frontend, servers.backend],
    markNotReady: () => (accepting = false),
    drainMs: config.drainMs,
    close: async () => undefined,
  });
} catch (err) {
  logger.fatal({ err: (err as Error).message }, 'gateway failed to start');
  process.exit(1);
}
