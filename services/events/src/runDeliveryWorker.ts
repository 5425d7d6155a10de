/**
 * The delivery loop of one events replica: up to `concurrency` attempts at a time, each claiming
 * its own due delivery; when nothing is due it sleeps `idleMs` (new deliveries are due at once, so
 * an event waits at most that long). Errors (a store outage) are logged and retried after the
 * pause; stop() waits for the attempts under way, whose leases would otherwise delay them.
 */
import type { Logger } from 'pino';
import { deliverDue, type DeliveryWorkerDeps } from './domain/deliverDue.js';

export function runDeliveryWorker(deps: DeliveryWorkerDeps, opts: { concurrency: number; idleMs: number; logger: Logger }): { stop(): Promise<void> } {
  let stopping = false;
  let wake: (() => void) | null = null;
  const pause = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, opts.idleMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const lane = async () => {
    while (!stopping) {
      let worked = false;
      try {
        worked = await deliverDue(deps);
      } catch (err) {
        opts.logger.warn({ err: (err as Error).message }, 'webhook delivery step failed; retrying');
      }
      if (!worked && !stopping) await pause();
    }
  };
  const lanes = Array.from({ length: opts.concurrency }, lane);
  return {
    async stop() {
      stopping = true;
      (wake as (() => void) | null)?.();
      await Promise.all(lanes);
    },
  };
}
