/** Ceremony service process: reads env → builds deps → serves → handles SIGTERM. */
import { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { EnvReader } from '../../runtime/config.js';
import { handleShutdown, listen } from '../../runtime/lifecycle.js';
import { createLogger } from '../../runtime/logger.js';
import { ceremonyOutcomeCounter, createMetrics, outboxRelayObserver } from '../../runtime/metrics.js';
import { connectStore, databaseNameOf } from '../../runtime/mongo.js';
import { internalTokenSource, parseInternalAuthKeys } from '../../runtime/internalAuth.js';
import { startOutboxRelay } from '../../runtime/outbox.js';
import { createSubscriptionCheck } from '../../runtime/subscribedTypesCache.js';
import { serviceClient } from '../../runtime/rpcClient.js';
import { EventService } from '../../../gen/passkeyauth/events/v1/event_service_pb.js';
import { rpcEventPublisher, rpcSubscribedEventTypes } from '../../runtime/eventsRpc.js';
import { confirmPasskeyEvent } from './domain/confirmPasskeyEvent.js';
import { readAaguidMetadataFile } from './aaguidMetadataFile.js';
import { rpcPasskeyDataSigner, rpcProjectDirectory, rpcUserDirectory } from './clients/connectDirectory.js';
import { createAaguidCatalog } from './domain/aaguidDetails.js';
import { createInsightsService } from './domain/insights/index.js';
import { ChallengeService } from '../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { rpcPasskeyNotifier } from './clients/challengeNotifier.js';
import { createServer } from './server.js';
import { mongoCredentialStore } from './store/credentials.js';
import { mongoAuthEventStore } from './store/authEvents.js';
import { CEREMONY_OUTBOX, ceremonyIndexes } from './store/indexes.js';
import { insightsIndexes } from './store/insightsIndexes.js';
import { createInsightsStores } from './store/insightsStores.js';
import { mongoSessionStore } from './store/sessions.js';
import { mongoWebauthnUserStore } from './store/webauthnUsers.js';

const env = new EnvReader();
const config = {
  // Shared key(s) proving the caller of every internal RPC (services/runtime/internalAuth.ts).
  internalAuthKeys: env.string('INTERNAL_AUTH_KEYS'),
  host: env.string('HOST', '127.0.0.1'),
  port: env.port('PORT', 7101),
  mongodbUri: env.string('MONGODB_URI'),
  connectUrl: env.url('CONNECT_URL', 'http://127.0.0.1:7103'),
  challengeUrl: env.url('CHALLENGE_URL', 'http://127.0.0.1:7102'),
  eventsUrl: env.url('EVENTS_URL', 'http://127.0.0.1:7104'),
  aaguidMetadataFile: env.optional('AAGUID_METADATA_FILE'),
  drainMs: env.int('SHUTDOWN_DRAIN_MS', 2000, 0, 60_000),
  // A test setting (0 otherwise): the outbox relay leaves an event alone until it is this old, so a
  // test can kill the process after it acknowledged a change and before the event left.
  outboxRelayHoldMs: env.int('OUTBOX_RELAY_HOLD_MS', 0, 0, 60_000),
};
const logger = createLogger('ceremony');
try {
  env.done();
  const internalAuth = parseInternalAuthKeys(config.internalAuthKeys);
  const callerToken = internalTokenSource(internalAuth, 'ceremony');
  const aaguids = createAaguidCatalog(config.aaguidMetadataFile ? await readAaguidMetadataFile(config.aaguidMetadataFile) : {});
  const metrics = createMetrics('ceremony');
  const store = await connectStore(config.mongodbUri, databaseNameOf(config.mongodbUri), { ...ceremonyIndexes, ...insightsIndexes }, metrics);
  const projectClient = serviceClient(ProjectService, config.connectUrl, callerToken);
  const projects = rpcProjectDirectory(projectClient);
  // Events are written in the background, each expiring after its project's retention.
  const insightsStores = createInsightsStores(store.db);
  const insights = createInsightsService(insightsStores, { logger, eventRetentionDays: async (projectId) => (await projects.get(projectId)).eventRetentionDays });
  const eventsClient = serviceClient(EventService, config.eventsUrl, callerToken);
  const events = startOutboxRelay(store.db, CEREMONY_OUTBOX, {
    publish: rpcEventPublisher(eventsClient),
    // No outbox write for an event no endpoint of the project subscribes to.
    subscriptions: createSubscriptionCheck(rpcSubscribedEventTypes(eventsClient)),
    confirm: confirmPasskeyEvent(mongoCredentialStore(store.db)),
    logger,
    now: () => new Date(),
    intervalMs: 2000,
    holdMs: config.outboxRelayHoldMs,
    observer: outboxRelayObserver(metrics),
  });
  let accepting = true;
  const server = createServer({
    internalAuth: { keys: internalAuth, service: 'ceremony' },
    logger,
    metrics,
    outcomes: ceremonyOutcomeCounter(metrics),
    ready: async () => accepting && (await store.ping()),
    projects,
    users: rpcUserDirectory(serviceClient(UserService, config.connectUrl, callerToken)),
    signer: rpcPasskeyDataSigner(projectClient),
    notifier: rpcPasskeyNotifier(serviceClient(ChallengeService, config.challengeUrl, callerToken)),
    sessions: mongoSessionStore(store.db),
    credentials: mongoCredentialStore(store.db),
    webauthnUsers: mongoWebauthnUserStore(store.db),
    authEvents: mongoAuthEventStore(store.db),
    insights,
    passkeyEvents: insightsStores.users,
    aaguids,
    events,
    now: () => new Date(),
  });
  const port = await listen(server, config.port, config.host);
  logger.info({ port }, `ceremony service listening on http://${config.host}:${port}`);
  handleShutdown({
    logger,
    servers: [server],
    markNotReady: () => (accepting = false),
    drainMs: config.drainMs,
    // Queued events are written before the store closes.
    close: async () => {
      await insights.close();
      await events.stop();
      await store.close();
    },
  });
} catch (err) {
  logger.fatal({ err: (err as Error).message }, 'ceremony service failed to start');
  process.exit(1);
}
