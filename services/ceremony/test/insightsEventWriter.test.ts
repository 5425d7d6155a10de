/**
 * The batching event writer (store/batchEventWrites.ts) with an in-memory write function: batches,
 * flush, retries, back pressure when the queue is full, close. No timers are awaited: flush()
 * drives the writes, and retry pauses go to a recording sleep.
 */
import { MongoNetworkError, MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { batchEventWrites, RetryLater, type BatchWriteOptions } from '../src/store/batchEventWrites.js';
import { isStoreOutage } from '../../runtime/isStoreOutage.js';

class Transient extends Error {}

interface Harness {
  written: number[][];
  logs: { level: 'warn' | 'error'; msg: string; fields: Record<string, unknown> }[];
  sleeps: number[];
  /** Errors the next write attempts throw, in order. */
  failures: unknown[];
  /** While set, writes wait for it. */
  gate: Promise<void> | null;
}

function harness(over: Partial<BatchWriteOptions<number>> = {}) {
  const h: Harness = { written: [], logs: [], sleeps: [], failures: [], gate: null };
  const writer = batchEventWrites<number>({
    maxBatch: 3,
    // Long enough that only flush() and full batches write during a test.
    delayMs: 3_600_000,
    write: async (batch) => {
      if (h.gate) await h.gate;
      const failure = h.failures.shift();
      if (failure) throw failure;
      h.written.push([...batch]);
    },
    isTransient: (err) => err instanceof Transient,
    logger: {
      warn: (fields: Record<string, unknown>, msg: string) => void h.logs.push({ level: 'warn', msg, fields }),
      error: (fields: Record<string, unknown>, msg: string) => void h.logs.push({ level: 'error', msg, fields }),
    } as never,
    sleep: async (ms) => void h.sleeps.push(ms),
    ...over,
  });
  return { h, writer };
}

/** Lets pending promise callbacks run (no timers involved). */
const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe('batchEventWrites', () => {
  it('queues without writing, then writes everything in batches of at most maxBatch, each item once', async () => {
    const { h, writer } = harness();
    for (let i = 1; i <= 2; i++) await writer.add(i);
    expect(h.written).toEqual([]);
    expect(writer.queued()).toBe(2);
    for (let i = 3; i <= 7; i++) await writer.add(i);
    await writer.flush();
    expect(h.written.flat()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(h.written.every((b) => b.length <= 3)).toBe(true);
    expect(writer.queued()).toBe(0);
  });

  it('retries a transient failure with growing pauses, then writes the batch once', async () => {
    const { h, writer } = harness({ backoffMs: { first: 50, max: 120 } });
    h.failures.push(new Transient('reset'), new Transient('reset'), new RetryLater('lookup down'));
    await writer.add(1);
    await writer.add(2);
    await writer.flush();
    expect(h.written).toEqual([[1, 2]]);
    expect(h.sleeps).toEqual([50, 100, 120]);
    expect(h.logs.filter((l) => l.level === 'warn')).toHaveLength(3);
    expect(h.logs.filter((l) => l.level === 'error')).toHaveLength(0);
  });

  it('gives up a batch the store refuses for good, logging how many events were lost, and writes the next', async () => {
    const { h, writer } = harness();
    h.failures.push(new Error('document invalid'));
    for (let i = 1; i <= 4; i++) await writer.add(i);
    await writer.flush();
    expect(h.written).toEqual([[4]]);
    expect(h.logs).toContainEqual(expect.objectContaining({ level: 'error', fields: expect.objectContaining({ lost: 3 }) }));
    expect(h.sleeps).toEqual([]);
  });

  it('when the queue is full a caller waits for its own write; nothing is dropped', async () => {
    const { h, writer } = harness({ maxQueue: 4, maxBatch: 2 });
    let open!: () => void;
    h.gate = new Promise<void>((resolve) => (open = resolve));
    // Two go into the (blocked) first batch, four fill the queue: all of these return at once.
    for (let i = 1; i <= 6; i++) await writer.add(i);
    const late = [7, 8].map((i) => {
      const state = { done: false };
      void writer.add(i).then(() => (state.done = true));
      return state;
    });
    await settle();
    expect(late.map((s) => s.done)).toEqual([false, false]);
    open();
    h.gate = null;
    await writer.flush();
    expect(late.map((s) => s.done)).toEqual([true, true]);
    expect(h.written.flat().sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('a waiting caller learns when its event could not be written', async () => {
    const { h, writer } = harness({ maxQueue: 1, maxBatch: 1 });
    let open!: () => void;
    h.gate = new Promise<void>((resolve) => (open = resolve));
    await writer.add(1);
    await writer.add(2);
    const waiting = writer.add(3);
    h.failures.push(undefined, undefined, new Error('refused'));
    open();
    h.gate = null;
    await expect(waiting).rejects.toThrow('refused');
    await writer.flush();
    expect(h.written.flat()).toEqual([1, 2]);
  });

  it('close writes what is queued; an event added afterwards is written at once', async () => {
    const { h, writer } = harness();
    await writer.add(1);
    await writer.close();
    expect(h.written).toEqual([[1]]);
    await writer.add(2);
    expect(h.written).toEqual([[1], [2]]);
  });

  it('close gives up after closeAttempts when the store stays unreachable, and says how many events were lost', async () => {
    const { h, writer } = harness({ closeAttempts: 3 });
    h.failures.push(...Array.from({ length: 10 }, () => new Transient('down')));
    await writer.add(1);
    await writer.add(2);
    await writer.close();
    expect(h.written).toEqual([]);
    expect(h.logs.filter((l) => l.level === 'warn')).toHaveLength(2);
    expect(h.logs).toContainEqual(expect.objectContaining({ level: 'error', fields: expect.objectContaining({ lost: 2, attempts: 3 }) }));
  });
});

describe('isStoreOutage (what the writer retries)', () => {
  it('retries the network and a stepping-down primary, not a duplicate key or a bug', () => {
    expect(isStoreOutage(new MongoNetworkError('connection reset'))).toBe(true);
    expect(isStoreOutage(new MongoServerError({ message: 'not primary', code: 10107 }))).toBe(true);
    expect(isStoreOutage(new MongoServerError({ message: 'shutting down', code: 91 }))).toBe(true);
    expect(isStoreOutage(new MongoServerError({ message: 'dup', code: 11000 }))).toBe(false);
    expect(isStoreOutage(new TypeError('bug'))).toBe(false);
  });
});
