/**
 * The closed-loop load driver: each virtual user runs one ceremony after the other, with no think
 * time, for warm-up plus the measured window. Only ceremonies that finish inside the window count;
 * the caller takes its before/after snapshots (metrics, CPU) at the window's edges through the two
 * hooks, while the virtual users keep running, so the load never pauses for a measurement.
 */
import { performance } from 'node:perf_hooks';
import { StepError } from './createJsonClient.js';

export interface LoopSpec<S> {
  /** One prepared state per virtual user (made before the clock starts). */
  states: S[];
  warmupSeconds: number;
  durationSeconds: number;
  iterate(state: S, vu: number, iteration: number): Promise<void>;
  /** Untimed work before each ceremony (e.g. fetching the next test user); a failure counts as an error. */
  before?(state: S, vu: number): Promise<void>;
  onMeasureStart?(): Promise<void>;
  onMeasureEnd?(): Promise<void>;
}

export interface LoopOutcome {
  ceremonies: number;
  errors: number;
  firstError: string | null;
  seconds: number;
  /** Milliseconds per successful ceremony in the window. */
  latencies: number[];
  driverCpuSeconds: number;
  /** The window's edges on the performance.now() clock. */
  window: { start: number; end: number };
}

export async function runClosedLoop<S>(spec: LoopSpec<S>): Promise<LoopOutcome> {
  const started = performance.now();
  const measureFrom = started + spec.warmupSeconds * 1000;
  const stopAt = measureFrom + spec.durationSeconds * 1000;
  // Window edges as actually taken (timers fire late on a busy machine); Infinity until then.
  let windowStart = Infinity;
  let windowEnd = Infinity;
  let cpuStart = process.cpuUsage();
  let cpuInWindow = 0;

  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;

  const edges = (async () => {
    await sleepUntil(measureFrom);
    windowStart = performance.now();
    cpuStart = process.cpuUsage();
    await spec.onMeasureStart?.();
    await sleepUntil(stopAt);
    windowEnd = performance.now();
    const cpu = process.cpuUsage(cpuStart);
    cpuInWindow = (cpu.user + cpu.system) / 1e6;
    await spec.onMeasureEnd?.();
  })();

  const vu = async (state: S, index: number) => {
    for (let i = 0; performance.now() < stopAt; i++) {
      let failure: unknown = null;
      let t0 = performance.now();
      try {
        if (spec.before) {
          await spec.before(state, index);
          t0 = performance.now();
        }
        await spec.iterate(state, index, i);
      } catch (err) {
        failure = err;
      }
      const t1 = performance.now();
      if (failure !== null && firstError === null) firstError = describe(failure);
      if (t1 < windowStart || t1 > windowEnd) continue;
      if (failure === null) latencies.push(t1 - t0);
      else errors++;
    }
  };
  await Promise.all([edges, ...spec.states.map((s, i) => vu(s, i))]);

  const seconds = (windowEnd - windowStart) / 1000;
  return { ceremonies: latencies.length, errors, firstError, seconds, latencies, driverCpuSeconds: cpuInWindow, window: { start: windowStart, end: windowEnd } };
}

function describe(err: unknown): string {
  if (err instanceof StepError) return err.message;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

function sleepUntil(t: number): Promise<void> {
  const ms = t - performance.now();
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}
