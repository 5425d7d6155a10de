/** Ceremony service process: reads env → builds deps → serves → handles SIGTERM. */
import { EnvReader } from '../../runtime/config.js';
import { handleShutdown, listen } from '../../runtime/lifecycle.js';
import { createLogger } from '../../runtime/logger.js';
import { createMetrics } from '../../runtime/metrics.js';
import { connectStore, databaseNameOf } from '../../runtime/mongo.js';
import { createServer } from './server.js';

const env = new EnvReader();
const config = {
  host: env.string('HOST', '127.0.0.1'),
  port: env.port('PORT', 7101),
  mongodbUri: env.string('MONGODB_URI'),
  drainMs: env.int('SHUTDOWN_DRAIN_MS', 2000, 0, 60_000),
};
const logger = createLogger('ceremony');
try {
  env.done();
  const store = await connectStore(config.mongodbUri, databaseNameOf(config.mongodbUri), {});
  let accepting = true;
  const server = createServer({ logger, metrics: createMetrics('ceremony'), ready: async () => accepting && (await store.ping()) });
  const port = await listen(server, config.port, config.host);
  logger.info({ port }, `ceremony service listening on http://${config.host}:${port}`);
  handleShutdown({ logger, servers: [server], markNotReady: () => (accepting = false), drainMs: config.drainMs, close: () => store.close() });
} catch (err) {
  logger.fatal({ err: (err as Error).message }, 'ceremony service failed to start');
  process.exit(1);
}
