/** Connect service process: reads env → builds deps → serves → handles SIGTERM. */
import { CeremonyService } from '../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { ChallengeService } from '../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { EventService } from '../../../gen/passkeyauth/events/v1/event_service_pb.js';
import { EnvReader } from '../../runtime/config.js';
import { handleShutdown, listen } from '../../runtime/lifecycle.js';
import { createLogger } from '../../runtime/logger.js';
import { parseMasterKey } from '../../runtime/masterKey.js';
import { createMetrics, outboxRelayObserver } from '../../runtime/metrics.js';
import { connectStore, databaseNameOf } from '../../runtime/mongo.js';
import { internalTokenSource, parseInternalAuthKeys } from '../../runtime/internalAuth.js';
import { startOutboxRelay } from '../../runtime/outbox.js';
import { createSubscriptionCheck } from '../../runtime/subscribedTypesCache.js';
import { serviceClient } from '../../runtime/rpcClient.js';
import { DEFAULT_PROJECT_URLS } from './projects/domain/projectDeps.js';
import { checkBaseUrl, frontendApiUrlFor } from './projects/domain/projectRules.js';
import { confirmConnectEvent, createServer } from './server.js';
import { mongoAuthProcessStore } from './auth-flows/store/authProcesses.js';
import { mongoClientEnvStore } from './shared/store/clientEnvs.js';
import { mongoConnectTokenStore } from './connect-tokens/store/connectTokens.js';
import { mongoProcessStore } from './connect-flows/store/processes.js';
import { CONNECT_OUTBOX, connectIndexes, prepareConnectStore } from './store/indexes.js';
import { mongoIdentifierStore } from './users/store/identifiers.js';
import { mongoSocialAccountStore } from './users/store/socialAccounts.js';
import { mongoIdentifierVerificationStore } from './me/store/identifierVerifications.js';
import { mongoMeAppendStore } from './me/store/meAppends.js';
import { mongoProjectStore } from './projects/store/projects.js';
import { mongoSessionStore } from './sessions/store/sessions.js';
import { mongoUserStore } from './users/store/users.js';
import { rpcOneTimeCodes } from './clients/challengeClient.js';
import { rpcPasskeyCeremonies } from './clients/ceremonyClient.js';
import { rpcUserCleanup } from './clients/userCleanup.js';
import { rpcEventPublisher, rpcSubscribedEventTypes } from '../../runtime/eventsRpc.js';
import { userSessionEnder } from './sessions/index.js';

const env = new EnvReader();
const config = {
  // Shared key(s) proving the caller of every internal RPC (services/runtime/internalAuth.ts).
  internalAuthKeys: env.string('INTERNAL_AUTH_KEYS'),
  host: env.string('HOST', '127.0.0.1'),
  port: env.port('PORT', 7103),
  mongodbUri: env.string('MONGODB_URI'),
  masterKey: env.string('MASTER_KEY'),
  challengeUrl: env.url('CHALLENGE_URL', 'http://127.0.0.1:7102'),
  ceremonyUrl: env.url('CEREMONY_URL', 'http://127.0.0.1:7101'),
  eventsUrl: env.url('EVENTS_URL', 'http://127.0.0.1:7104'),
  // A template (may contain {projectID}), so it is checked below with a sample project ID.
  frontendApiUrl: env.string('FRONTEND_API_URL', DEFAULT_PROJECT_URLS.frontendApiUrl),
  backendApiUrl: env.string('BACKEND_API_URL', DEFAULT_PROJECT_URLS.backendApiUrl),
  drainMs: env.int('SHUTDOWN_DRAIN_MS', 2000, 0, 60_000),
  // A test setting (0 otherwise): the outbox relay leaves an event alone until it is this old, so a
  // test can kill the process after it acknowledged a change and before the event left.
  outboxRelayHoldMs: env.int('OUTBOX_RELAY_HOLD_MS', 0, 0, 60_000),
};
const logger = createLogger('connect');
try {
  env.done();
  const internalAuth = parseInternalAuthKeys(config.internalAuthKeys);
  const callerToken = internalTokenSource(internalAuth, 'connect');
  const masterKey = parseMasterKey(config.masterKey);
  frontendApiUrlFor(config.frontendApiUrl, 'pro-1');
  const backendApiUrl = checkBaseUrl('BACKEND_API_URL', config.backendApiUrl);
  const metrics = createMetrics('connect');
  const store = await connectStore(config.mongodbUri, databaseNameOf(config.mongodbUri), connectIndexes, metrics, prepareConnectStore);
  const ceremony = serviceClient(CeremonyService, config.ceremonyUrl, callerToken);
  const challenges = serviceClient(ChallengeService, config.challengeUrl, callerToken);
  const sessions = mongoSessionStore(store.db);
  const eventsClient = serviceClient(EventService, config.eventsUrl, callerToken);
  const events = startOutboxRelay(store.db, CONNECT_OUTBOX, {
    publish: rpcEventPublisher(eventsClient),
    // No outbox write for an event no endpoint of the project subscribes to.
    subscriptions: createSubscriptionCheck(rpcSubscribedEventTypes(eventsClient)),
    confirm: confirmConnectEvent(mongoUserStore(store.db), sessions),
    logger,
    now: () => new Date(),
    intervalMs: 2000,
    holdMs: config.outboxRelayHoldMs,
    observer: outboxRelayObserver(metrics),
  });
  let accepting = true;
  const server = createServer({
    internalAuth: { keys: internalAuth, service: 'connect' },
    logger,
    metrics,
    ready: async () => accepting && (await store.ping()),
    projects: mongoProjectStore(store.db),
    users: mongoUserStore(store.db),
    identifiers: mongoIdentifierStore(store.db),
    socialAccounts: mongoSocialAccountStore(store.db),
    connectTokens: mongoConnectTokenStore(store.db),
    processes: mongoProcessStore(store.db),
    clientEnvs: mongoClientEnvStore(store.db),
    sessions,
    sessionEnder: userSessionEnder({ sessions, events, now: () => new Date() }),
    meAppends: mongoMeAppendStore(store.db),
    identifierVerifications: mongoIdentifierVerificationStore(store.db),
    ceremony: rpcPasskeyCeremonies(ceremony),
    challenges: rpcOneTimeCodes(challenges),
    authProcesses: mongoAuthProcessStore(store.db),
    cleanup: rpcUserCleanup(challenges, ceremony),
    events,
    masterKey,
    urls: { frontendApiUrl: config.frontendApiUrl, backendApiUrl },
    now: () => new Date(),
  });
  const port = await listen(server, config.port, config.host);
  logger.info({ port }, `connect service listening on http://${config.host}:${port}`);
  handleShutdown({ logger, servers: [server], markNotReady: () => (accepting = false), drainMs: config.drainMs, close: async () => {
      await events.stop();
      await store.close();
    },
  });
} catch (err) {
  logger.fatal({ err: (err as Error).message }, 'connect service failed to start');
  process.exit(1);
}
