/** Challenge service process: reads env → builds deps → serves → handles SIGTERM. */
import { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { EnvReader } from '../../runtime/config.js';
import { handleShutdown, listen } from '../../runtime/lifecycle.js';
import { createLogger } from '../../runtime/logger.js';
import { parseMasterKey } from '../../runtime/masterKey.js';
import { challengeDeliveryCounter, createMetrics, outboxRelayObserver } from '../../runtime/metrics.js';
import { connectStore, databaseNameOf } from '../../runtime/mongo.js';
import { internalTokenSource, parseInternalAuthKeys } from '../../runtime/internalAuth.js';
import { startOutboxRelay } from '../../runtime/outbox.js';
import { serviceClient } from '../../runtime/rpcClient.js';
import { EventService } from '../../../gen/passkeyauth/events/v1/event_service_pb.js';
import { rpcEventPublisher, rpcSubscribedEventTypes } from '../../runtime/eventsRpc.js';
import { createSubscriptionCheck } from '../../runtime/subscribedTypesCache.js';
import { confirmChallengeEvent } from './domain/confirmChallengeEvent.js';
import { DEFAULT_RATE_LIMITS, type RateLimit, type RateLimitConfig } from './domain/rateLimits.js';
import { createValueHasher } from './domain/valueHasher.js';
import { rpcProjectSettings } from './clients/projectSettingsDirectory.js';
import { mongoRateLimits } from './rateLimits.js';
import { createDeliveryFromEnv } from './delivery/index.js';
import { createServer } from './server.js';
import { CHALLENGE_OUTBOX, challengeIndexes, mongoChallengeStore } from './store/challenges.js';
import { rpcUserDirectory } from './clients/userDirectory.js';

const env = new EnvReader();
/** A limit from RATE_LIMIT_<NAME> (events) and RATE_LIMIT_<NAME>_SECONDS (window). */
const limit = (name: string, fallback: RateLimit): RateLimit => ({
  points: env.int(`RATE_LIMIT_${name}`, fallback.points, 1, 1_000_000),
  durationSeconds: env.int(`RATE_LIMIT_${name}_SECONDS`, fallback.durationSeconds, 1, 86_400),
});
const rateLimits: RateLimitConfig = {
  creationPerUser: limit('CREATE_PER_USER', DEFAULT_RATE_LIMITS.creationPerUser),
  creationPerIdentifier: limit('CREATE_PER_IDENTIFIER', DEFAULT_RATE_LIMITS.creationPerIdentifier),
  verificationPerChallenge: limit('VERIFY_PER_CHALLENGE', DEFAULT_RATE_LIMITS.verificationPerChallenge),
  verificationPerUser: limit('VERIFY_PER_USER', DEFAULT_RATE_LIMITS.verificationPerUser),
  verificationPerAddress: limit('VERIFY_PER_ADDRESS', DEFAULT_RATE_LIMITS.verificationPerAddress),
};
const config = {
  // Shared key(s) proving the caller of every internal RPC (services/runtime/internalAuth.ts).
  internalAuthKeys: env.string('INTERNAL_AUTH_KEYS'),
  host: env.string('HOST', '127.0.0.1'),
  port: env.port('PORT', 7102),
  mongodbUri: env.string('MONGODB_URI'),
  masterKey: env.string('MASTER_KEY'),
  connectUrl: env.url('CONNECT_URL', 'http://127.0.0.1:7103'),
  eventsUrl: env.url('EVENTS_URL', 'http://127.0.0.1:7104'),
  drainMs: env.int('SHUTDOWN_DRAIN_MS', 2000, 0, 60_000),
  // A test setting (0 otherwise), as in connect and ceremony: the relay leaves an event alone until it is this old.
  outboxRelayHoldMs: env.int('OUTBOX_RELAY_HOLD_MS', 0, 0, 60_000),
};
const logger = createLogger('challenge');
try {
  env.done();
  const internalAuth = parseInternalAuthKeys(config.internalAuthKeys);
  const callerToken = internalTokenSource(internalAuth, 'challenge');
  const masterKey = parseMasterKey(config.masterKey);
  const delivery = createDeliveryFromEnv(process.env);
  logger.info({ delivery: delivery.summary }, 'challenge delivery');
  const metrics = createMetrics('challenge');
  const store = await connectStore(config.mongodbUri, databaseNameOf(config.mongodbUri), challengeIndexes, metrics);
  const challenges = mongoChallengeStore(store.db);
  const eventsClient = serviceClient(EventService, config.eventsUrl, callerToken);
  const events = startOutboxRelay(store.db, CHALLENGE_OUTBOX, {
    publish: rpcEventPublisher(eventsClient),
    // No outbox write for an event no endpoint of the project subscribes to.
    subscriptions: createSubscriptionCheck(rpcSubscribedEventTypes(eventsClient)),
    confirm: confirmChallengeEvent(challenges),
    logger,
    now: () => new Date(),
    intervalMs: 2000,
    holdMs: config.outboxRelayHoldMs,
    observer: outboxRelayObserver(metrics),
  });
  let accepting = true;
  const server = createServer({
    internalAuth: { keys: internalAuth, service: 'challenge' },
    logger,
    metrics,
    ready: async () => accepting && (await store.ping()),
    store: challenges,
    users: rpcUserDirectory(serviceClient(UserService, config.connectUrl, callerToken)),
    projects: rpcProjectSettings(serviceClient(ProjectService, config.connectUrl, callerToken)),
    limits: mongoRateLimits(store.db, rateLimits),
    hasher: createValueHasher(masterKey),
    events,
    delivery: { email: delivery.email, sms: delivery.sms, logger, now: () => new Date(), deliveries: challengeDeliveryCounter(metrics) },
    now: () => new Date(),
  });
  const port = await listen(server, config.port, config.host);
  logger.info({ port }, `challenge service listening on http://${config.host}:${port}`);
  handleShutdown({ logger, servers: [server], markNotReady: () => (accepting = false), drainMs: config.drainMs, close: async () => {
      delivery.close();
      // Events recorded before the drain are handed over, or stay in the outbox for the next start.
      await events.stop();
      await store.close();
    },
  });
} catch (err) {
  logger.fatal({ err: (err as Error).message }, 'challenge service failed to start');
  process.exit(1);
}
