/**
 * The delivery loop of one events replica: up to `concurrency` attempts at a time, in lanes that
 * each claim a batch of up to CLAIM_BATCH due deliveries (a claim, an endpoint read and an outcome
 * write serve the whole batch) and attempt them at once; when nothing is due a lane sleeps `idleMs`
 * (new deliveries are due at once, so an event waits at most that long); so does a lane whose
batch was not full (nothing else was due), which lets the next batch fill up instead of claiming
each new delivery alone. A lane claims its next
 * batch when the slowest attempt of the last one ended, so a receiver slow up to the timeout holds
 * one lane, not the replica; batches stay small for that reason. Errors (a store outage) are logged and retried after the
 * pause; stop() waits for the attempts under way, whose leases would otherwise delay them.
 * Beside the lanes, a sweep removes signing secrets whose rotation overlap ended (deliveries stop
 * using them at the expiry already; the sweep keeps them from staying at rest).
 */
import type { Logger } from 'pino';
import { deliverDueBatch, type DeliveryWorkerDeps } from './domain/deliverDue.js';

/** Deliveries one lane claims and attempts at once. */
const CLAIM_BATCH = 4;
/** How often expired previous signing secrets are removed. */
const SWEEP_MS = 60_000;

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
  const batchSize = Math.min(CLAIM_BATCH, opts.concurrency);
  const laneDeps = { ...deps, batchSize };
  const lane = async () => {
    while (!stopping) {
      let claimed = 0;
      try {
        claimed = await deliverDueBatch(laneDeps);
      } catch (err) {
        opts.logger.warn({ err: (err as Error).message }, 'webhook delivery step failed; retrying');
      }
      // A batch that was not full took everything due: claiming again at once would find nothing.
      if (claimed < batchSize && !stopping) await pause();
    }
  };
  const lanes = Array.from({ length: Math.ceil(opts.concurrency / batchSize) }, lane);
  const sweep = () =>
    deps.endpoints.dropExpiredPreviousSecrets(deps.now()).catch((err: Error) => opts.logger.warn({ err: err.message }, 'sweeping expired signing secrets failed; retrying'));
  void sweep();
  const sweeper = setInterval(sweep, SWEEP_MS);
  sweeper.unref();
  return {
    async stop() {
      stopping = true;
      clearInterval(sweeper);
      (wake as (() => void) | null)?.();
      await Promise.all(lanes);
    },
  };
}
