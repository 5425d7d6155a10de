/**
 * `npm start`: the whole local stack on one machine. Starts the embedded MongoDB-compatible
 * store (unless MONGODB_URI points at a real MongoDB), then prints where everything is.
 * Ctrl-C / SIGTERM stops everything; a crashed process is reported and restarted.
 */
import { Supervisor } from './supervisor.js';

const supervisor = new Supervisor();
let shuttingDown = false;
const shutdown = async (signal: string) => {
  if (shuttingDown) return;
  shuttingDown = true;
  process.stdout.write(`\n${signal}: stopping the local stack…\n`);
  await supervisor.stop();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

const mongoPort = Number(process.env.EMBEDDED_MONGO_PORT ?? 27017);
let mongoUri = process.env.MONGODB_URI;
try {
  if (!mongoUri) {
    await supervisor.start({
      name: 'mongo',
      command: process.execPath,
      args: ['--import', 'tsx', 'deploy/local/embedded-mongo/src/cli.ts', '--port', String(mongoPort), '--data-dir', '.data/mongo'],
      ready: (lines) => lines.some((l) => l.startsWith('listening on mongodb://')),
    });
    mongoUri = `mongodb://127.0.0.1:${mongoPort}`;
  }
  process.stdout.write(
    [
      '',
      'Local stack is up:',
      `  MongoDB  ${mongoUri}${process.env.MONGODB_URI ? ' (from MONGODB_URI)' : ' (embedded store, data in .data/mongo)'}`,
      '',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
} catch (err) {
  process.stderr.write(`npm start failed: ${(err as Error).message}\n`);
  await supervisor.stop();
  process.exit(1);
}
