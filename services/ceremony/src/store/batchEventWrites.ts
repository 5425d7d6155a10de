/**
 * Writes events in the background so a ceremony never waits for its audit trail: items are queued
 * and written in batches (every delayMs, or at once when maxBatch are waiting), one batch at a
 * time. A transient failure is retried with exponential backoff; while it lasts the queue fills,
 * and once maxQueue items wait a caller's add resolves only when its own item is written (back
 * pressure instead of dropping). A failure that no retry can cure is logged with the number of
 * events lost. close() writes what is queued (giving up after closeAttempts tries of a failing
 * batch, logged) and later adds write at once.
 */
import type { Logger } from 'pino';

/** Thrown by a write to ask for a retry although the error is not a store error (e.g. a lookup it needs was unreachable). */
export class RetryLater extends Error {}

export interface BatchWriteOptions<T> {
  write(batch: T[]): Promise<void>;
  isTransient(err: unknown): boolean;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** Most items per write (default 100). */
  maxBatch?: number;
  /** How long the first queued item waits for others (default 25 ms). */
  delayMs?: number;
  /** Queued items beyond which add waits for its write (default 10,000). */
  maxQueue?: number;
  /** First and largest pause between retries (default 50 ms, 5 s). */
  backoffMs?: { first: number; max: number };
  /** Tries of a failing batch during close() before its items are given up (default 5). */
  closeAttempts?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface BatchWriter<T> {
  /** Queues the item; resolves at once, or when the item is written if the queue is full. */
  add(item: T): Promise<void>;
  /** Resolves when everything added before the call is written (or given up, logged). */
  flush(): Promise<void>;
  /** Flushes; items added afterwards are written one by one at once. */
  close(): Promise<void>;
  /** Items waiting to be written (for metrics and tests). */
  queued(): number;
}

interface Queued<T> {
  item: T;
  /** Present when the caller waits for the write (queue full). */
  settle?: { resolve(): void; reject(err: unknown): void };
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export function batchEventWrites<T>(opts: BatchWriteOptions<T>): BatchWriter<T> {
  const maxBatch = opts.maxBatch ?? 100;
  const delayMs = opts.delayMs ?? 25;
  const maxQueue = opts.maxQueue ?? 10_000;
  const backoff = opts.backoffMs ?? { first: 50, max: 5000 };
  const closeAttempts = opts.closeAttempts ?? 5;
  const sleep = opts.sleep ?? defaultSleep;
  const queue: Queued<T>[] = [];
  let inFlight: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closing = false;
  /** Queued items whose callers wait for their write: these are written without delay. */
  let waiting = 0;

  function schedule(): void {
    if (timer || inFlight) return;
    timer = setTimeout(() => {
      timer = null;
      void writeNext();
    }, delayMs);
    // A pending batch never keeps the process alive; shutdown flushes it through close().
    timer.unref();
  }

  /** Starts writing the next batch unless one is being written; returns the running write. */
  function writeNext(): Promise<void> {
    if (inFlight) return inFlight;
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (!queue.length) return Promise.resolve();
    const batch = queue.splice(0, maxBatch);
    inFlight = writeWithRetry(batch).finally(() => {
      inFlight = null;
      if (queue.length >= maxBatch || waiting > 0) void writeNext();
      else if (queue.length) schedule();
    });
    return inFlight;
  }

  async function writeWithRetry(batch: Queued<T>[]): Promise<void> {
    let pause = backoff.first;
    for (let attempt = 1; ; attempt++) {
      try {
        await opts.write(batch.map((q) => q.item));
        settle(batch, (s) => s.resolve());
        return;
      } catch (err) {
        const transient = err instanceof RetryLater || opts.isTransient(err);
        if (!transient || (closing && attempt >= closeAttempts)) {
          opts.logger.error({ err, lost: batch.length, attempts: attempt }, transient ? 'ceremony events lost: the store stayed unreachable during shutdown' : 'ceremony events lost: the store refused them');
          settle(batch, (s) => s.reject(err));
          return;
        }
        opts.logger.warn({ err, attempt, retryInMs: pause, queued: queue.length + batch.length }, 'ceremony events not written yet; retrying');
        await sleep(pause);
        pause = Math.min(pause * 2, backoff.max);
      }
    }
  }

  function settle(batch: Queued<T>[], how: (s: NonNullable<Queued<T>['settle']>) => void): void {
    for (const q of batch) {
      if (!q.settle) continue;
      waiting--;
      how(q.settle);
    }
  }

  async function flush(): Promise<void> {
    // Loops because items added while a batch is written queue behind it.
    while (inFlight || queue.length) await writeNext();
  }

  return {
    add(item) {
      // Full (or shutting down): the caller waits for its own write instead of the item being dropped.
      if (closing || queue.length >= maxQueue) {
        waiting++;
        const settled = new Promise<void>((resolve, reject) => queue.push({ item, settle: { resolve, reject } }));
        void writeNext();
        return settled;
      }
      queue.push({ item });
      if (queue.length >= maxBatch) void writeNext();
      else schedule();
      return Promise.resolve();
    },
    flush,
    async close() {
      closing = true;
      await flush();
    },
    queued: () => queue.length,
  };
}
