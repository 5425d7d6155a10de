/** Events service process: reads env → builds deps → serves → runs the delivery worker → SIGTERM. */
import { randomBytes } from 'node:crypto';
import { EnvReader } from '../../runtime/config.js';
import { handleShutdown, listen } from '../../runtime/lifecycle.js';
import { createLogger } from '../../runtime/logger.js';
import { parseMasterKey } from '../../runtime/masterKey.js';
import { createMetrics, webhookDeliveryObserver } from '../../runtime/metrics.js';
import { connectStore, databaseNameOf } from '../../runtime/mongo.js';
import { parseInternalAuthKeys } from '../../runtime/internalAuth.js';
import { parseRetrySchedule } from './domain/retrySchedule.js';
import { resolveHost, webhookPoster } from './delivery/postWebhook.js';
import { runDeliveryWorker } from './runDeliveryWorker.js';
import { createServer } from './server.js';
import { deliveryIndexes, mongoDeliveryStore } from './store/webhookDeliveries.js';
import { mongoWebhookEndpointStore, webhookEndpointIndexes } from './store/webhookEndpoints.js';
import { mongoWebhookProjectSettingsStore, webhookProjectSettingsIndexes } from './store/webhookProjectSettings.js';

const env = new EnvReader();
const config = {
  internalAuthKeys: env.string('INTERNAL_AUTH_KEYS'),
  host: env.string('HOST', '127.0.0.1'),
  port: env.port('PORT', 7104),
  mongodbUri: env.string('MONGODB_URI'),
  masterKey: env.string('MASTER_KEY'),
  drainMs: env.int('SHUTDOWN_DRAIN_MS', 2000, 0, 60_000),
  // Loopback, private and link-local receivers: refused unless the operator allows them, for every
  // project here (npm start and the tests do) or per project (the `webhooks` CLI).
  allowPrivateAddresses: env.string('WEBHOOK_ALLOW_PRIVATE_ADDRESSES', 'false') === 'true',
  retrySchedule: env.optional('WEBHOOK_RETRY_SCHEDULE'),
  timeoutMs: env.int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
  concurrency: env.int('WEBHOOK_CONCURRENCY', 8, 1, 256),
  idleMs: env.int('WEBHOOK_POLL_MS', 250, 10, 60_000),
  // How long producers may rely on "no endpoint subscribes to this type" (0: they write every
  // event); an endpoint's create waits this long plus a second. At most 5 s: the create must
  // answer within the gateway's upstream timeout.
  subscriptionCacheMs: env.int('WEBHOOK_SUBSCRIPTION_CACHE_MS', 3000, 0, 5000),
};
const logger = createLogger('events');
try {
  env.done();
  const internalAuth = parseInternalAuthKeys(config.internalAuthKeys);
  const masterKey = parseMasterKey(config.masterKey);
  const retryDelaysSeconds = parseRetrySchedule(config.retrySchedule);
  const metrics = createMetrics('events');
  const store = await connectStore(config.mongodbUri, databaseNameOf(config.mongodbUri), { ...webhookEndpointIndexes, ...deliveryIndexes, ...webhookProjectSettingsIndexes }, metrics);
  const endpoints = mongoWebhookEndpointStore(store.db);
  const deliveries = mongoDeliveryStore(store.db);
  const settings = mongoWebhookProjectSettingsStore(store.db);
  const now = () => new Date();
  let accepting = true;
  const server = createServer({
    internalAuth: { keys: internalAuth, service: 'events' },
    logger,
    metrics,
    ready: async () => accepting && (await store.ping()),
    endpoints,
    deliveries,
    masterKey,
    allowPrivateAddresses: config.allowPrivateAddresses,
    settings,
    resolveHost,
    subscriptionCacheMs: config.subscriptionCacheMs,
    now,
  });
  const worker = runDeliveryWorker(
    {
      endpoints,
      deliveries,
      post: webhookPoster(config.timeoutMs),
      masterKey,
      allowPrivateAddresses: config.allowPrivateAddresses,
      settings,
      retryDelaysSeconds,
      // A replica's own lease owner ID: random per process, so a restarted process never mistakes an old lease for its own.
      owner: `events-${randomBytes(6).toString('hex')}`,
      leaseMs: config.timeoutMs + 50_000,
      now,
      observer: webhookDeliveryObserver(metrics),
    },
    { concurrency: config.concurrency, idleMs: config.idleMs, logger },
  );
  const port = await listen(server, config.port, config.host);
  logger.info({ port, allowPrivateAddresses: config.allowPrivateAddresses, retryDelaysSeconds }, `events service listening on http://${config.host}:${port}`);
  handleShutdown({ logger, servers: [server], markNotReady: () => (accepting = false), drainMs: config.drainMs, close: async () => {
      await worker.stop();
      await store.close();
    },
  });
} catch (err) {
  logger.fatal({ err: (err as Error).message }, 'events service failed to start');
  process.exit(1);
}
