/** Challenge service process: reads env → builds deps → serves → handles SIGTERM. */
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { EnvReader } from '../../runtime/config.js';
import { handleShutdown, listen } from '../../runtime/lifecycle.js';
import { createLogger } from '../../runtime/logger.js';
import { parseMasterKey } from '../../runtime/masterKey.js';
import { createMetrics } from '../../runtime/metrics.js';
import { connectStore, databaseNameOf } from '../../runtime/mongo.js';
import { serviceClient } from '../../runtime/rpcClient.js';
import { createValueHasher } from './domain/valueHasher.js';
import { createServer } from './server.js';
import { challengeIndexes, mongoChallengeStore } from './store/challenges.js';
import { rpcUserDirectory } from './userDirectory.js';

const env = new EnvReader();
const config = {
  host: env.string('HOST', '127.0.0.1'),
  port: env.port('PORT', 7102),
  mongodbUri: env.string('MONGODB_URI'),
  masterKey: env.string('MASTER_KEY'),
  connectUrl: env.url('CONNECT_URL', 'http://127.0.0.1:7103'),
  drainMs: env.int('SHUTDOWN_DRAIN_MS', 2000, 0, 60_000),
};
const logger = createLogger('challenge');
try {
  env.done();
  const masterKey = parseMasterKey(config.masterKey);
  const store = await connectStore(config.mongodbUri, databaseNameOf(config.mongodbUri), challengeIndexes);
  let accepting = true;
  const server = createServer({
    logger,
    metrics: createMetrics('challenge'),
    ready: async () => accepting && (await store.ping()),
    store: mongoChallengeStore(store.db),
    users: rpcUserDirectory(serviceClient(UserService, config.connectUrl)),
    hasher: createValueHasher(masterKey),
    now: () => new Date(),
  });
  const port = await listen(server, config.port, config.host);
  logger.info({ port }, `challenge service listening on http://${config.host}:${port}`);
  handleShutdown({ logger, servers: [server], markNotReady: () => (accepting = false), drainMs: config.drainMs, close: () => store.close() });
} catch (err) {
  logger.fatal({ err: (err as Error).message }, 'challenge service failed to start');
  process.exit(1);
}
