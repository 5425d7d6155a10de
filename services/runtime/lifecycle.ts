/** Listening and graceful shutdown: on SIGTERM report not ready, drain, close listeners, close the store. */
import type { Server } from 'node:http';
import type { Logger } from 'pino';

export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    });
  });
}

export interface ShutdownOptions {
  logger: Logger;
  servers: Server[];
  /** Called first, so /readyz turns 503 and load balancers stop sending traffic. */
  markNotReady: () => void;
  /** How long to keep serving after markNotReady before closing listeners (endpoint propagation). */
  drainMs: number;
  close: () => Promise<void>;
}

export function handleShutdown(opts: ShutdownOptions): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    opts.logger.info({ signal }, 'shutting down');
    opts.markNotReady();
    await new Promise((r) => setTimeout(r, opts.drainMs));
    await Promise.all(
      opts.servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeIdleConnections();
            // Requests still running after the grace period are cut off.
            setTimeout(() => {
              s.closeAllConnections();
              resolve();
            }, 10_000).unref();
          }),
      ),
    );
    await opts.close().catch((err) => opts.logger.error({ err }, 'error while closing'));
    opts.logger.info('stopped');
    process.exit(0);
  };
  // `on`, not `once`: a process-group SIGTERM (timeout, process managers, kill -- -PGID) reaches
  // the process twice, directly and from its supervisor; the second must not end the drain.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Under the local supervisor, stdin is a pipe from it: when it closes, the supervisor is gone
  // (even killed with SIGKILL), and a process left behind would hold its port.
  if (process.env[SUPERVISED_ENV] === '1') {
    process.stdin.on('end', () => void stop('supervisor gone'));
    process.stdin.on('error', () => void stop('supervisor gone'));
    process.stdin.resume();
  }
}

/** Set by the local supervisor for the processes it runs (see handleShutdown). */
export const SUPERVISED_ENV = 'PASSKEYAUTH_SUPERVISED';
