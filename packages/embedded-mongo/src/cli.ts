/**
 * `npm run embedded-mongo -- --port 27017 --data-dir .data/mongo`
 * Prints `listening on mongodb://127.0.0.1:PORT` once ready; exits cleanly on SIGTERM/SIGINT, and
 * with --stop-with-stdin also when its stdin closes (its parent is gone).
 */
import { parseArgs } from 'node:util';
import { startEmbeddedMongo } from './server.js';

const USAGE = 'usage: embedded-mongo [--port N] [--data-dir DIR] [--ttl-interval SECONDS] [--compact-after-bytes N] [--cache-mb N] [--stop-with-stdin]\n';
const options = {
  port: { type: 'string', default: '27017' },
  'data-dir': { type: 'string' },
  'ttl-interval': { type: 'string', default: '60' },
  // Tuning knob (tests use it to force frequent snapshots); default 64 MiB.
  'compact-after-bytes': { type: 'string' },
  // Recently written documents kept in memory (with --data-dir); default 64.
  'cache-mb': { type: 'string' },
  // Under `npm start` the store runs in its own process group (deploy/local/supervisor.ts,
  // stopLast), out of reach of the terminal's signals; its stdin is a pipe from the launcher, and
  // its closing is how it learns the launcher is gone (even killed with SIGKILL).
  'stop-with-stdin': { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} as const;

let values: ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];
try {
  ({ values } = parseArgs({ options }));
} catch (err) {
  process.stderr.write(`embedded-mongo: ${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}

if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const port = Number(values.port);
const ttl = Number(values['ttl-interval']);
const compactAfterBytes = values['compact-after-bytes'] === undefined ? undefined : Number(values['compact-after-bytes']);
const cacheMb = values['cache-mb'] === undefined ? undefined : Number(values['cache-mb']);
if (cacheMb !== undefined && !/^\d+(\.\d+)?$/.test(values['cache-mb']!)) {
  process.stderr.write(`--cache-mb must be a number of MiB (0 or more), got ${values['cache-mb']}\n`);
  process.exit(2);
}
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`--port must be 0..65535, got ${values.port}\n`);
  process.exit(2);
}
if (!Number.isFinite(ttl) || ttl <= 0) {
  process.stderr.write(`--ttl-interval must be a positive number of seconds, got ${values['ttl-interval']}\n`);
  process.exit(2);
}
if (compactAfterBytes !== undefined && (!Number.isInteger(compactAfterBytes) || compactAfterBytes <= 0)) {
  process.stderr.write(`--compact-after-bytes must be a positive integer, got ${values['compact-after-bytes']}\n`);
  process.exit(2);
}

try {
  const store = await startEmbeddedMongo({ port, dataDir: values['data-dir'], ttlIntervalMs: ttl * 1000, compactAfterBytes, cacheBytes: cacheMb === undefined ? undefined : Math.floor(cacheMb * 2 ** 20) });
  process.stdout.write(`listening on ${store.uri}\n`);
  const shutdown = () => {
    store.stop().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  if (values['stop-with-stdin']) {
    process.stdin.once('end', shutdown);
    process.stdin.once('error', shutdown);
    process.stdin.resume();
  }
} catch (err) {
  process.stderr.write(`embedded-mongo: ${(err as Error).message}\n`);
  process.exit(1);
}
