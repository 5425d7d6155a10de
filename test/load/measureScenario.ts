/**
 * One scenario against one target: prepare the virtual users, run the closed loop, and around its
 * measured window take the processes' CPU times (/proc) and /metrics counters, so CPU, store
 * operations and RPCs are per ceremony of exactly that window.
 */
import type { BaselineRun, LoopResult, ProcessUsage, StackRun } from './benchResults.js';
import { computeLatencyStats } from './computeLatencyStats.js';
import type { ScenarioPlan } from './defineScenarios.js';
import { diffCounter, parseMetrics, RPCS, STORE_OPERATIONS, type Sample } from './diffMetrics.js';
import { readCpuSeconds, readMemoryMb, resetPeakRss } from './readProcessStats.js';
import type { BenchTarget } from './registerPasskeyUser.js';
import { runClosedLoop, type LoopOutcome } from './runClosedLoop.js';

export interface LoopOptions {
  warmupSeconds: number;
  durationSeconds: number;
  /** How often /metrics is scraped during the warm-up (default 5 s; see measureStackRun). */
  warmupScrapeSeconds?: number;
}

const WARMUP_SCRAPE_SECONDS = 5;

/** What can be observed of the target's processes. */
export interface Probe {
  /** Name → pid of the processes that can be read from /proc (none for a stack started elsewhere). */
  pids: Record<string, number>;
  /** Name → base URL of the processes' /metrics. */
  metricsUrls: Record<string, string>;
}

interface Snapshot {
  cpu: Record<string, number | null>;
  metrics: Record<string, Sample[] | null>;
}

export async function measureStackRun(plan: ScenarioPlan<unknown>, target: BenchTarget, probe: Probe, loop: LoopOptions): Promise<StackRun> {
  const names = [...new Set([...Object.keys(probe.pids), ...Object.keys(probe.metricsUrls)])];
  for (const pid of [...Object.values(probe.pids), process.pid]) resetPeakRss(pid);
  const states = await plan.prepare(target);
  // The bench's scrape of /metrics is a request unlike the RPCs. A service whose request path was
  // optimized without ever seeing one is thrown back to the JIT by it: the gateway logged about
  // 30 deoptimizations, then recompiled, right at the window's start. So /metrics is scraped all
  // through the warm-up, as a Prometheus scraping every few seconds would in production. One
  // scrape before the load is not enough: V8 keeps no type feedback for a function until it has
  // run a few times, so what a cold service saw once is forgotten.
  const warmupScrapes = await scrapeEvery(probe, (loop.warmupScrapeSeconds ?? WARMUP_SCRAPE_SECONDS) * 1000);
  let before: Snapshot | null = null;
  let after: Snapshot | null = null;
  const outcome = await runClosedLoop({
    states,
    warmupSeconds: loop.warmupSeconds,
    durationSeconds: loop.durationSeconds,
    iterate: (state, vu, i) => plan.iterate(target, state, vu, i),
    before: plan.before ? (state, vu) => plan.before!(target, state, vu) : undefined,
    onMeasureStart: async () => {
      await warmupScrapes.stop();
      before = await snapshot(probe);
    },
    onMeasureEnd: async () => void (after = await snapshot(probe)),
  }).finally(() => warmupScrapes.stop());
  const result = loopResult(outcome);
  const attempts = outcome.ceremonies + outcome.errors;
  const processes: ProcessUsage[] = [];
  const resets: string[] = [];
  let storeTotal: number | null = null;
  let rpcTotal: number | null = null;
  for (const name of names) {
    const pid = probe.pids[name];
    const cpu0 = before!.cpu[name];
    const cpu1 = after!.cpu[name];
    const m0 = before!.metrics[name];
    const m1 = after!.metrics[name];
    let store = null;
    let rpcs = null;
    if (m0 && m1) {
      store = diffCounter(m0, m1, STORE_OPERATIONS, 'operation');
      rpcs = diffCounter(m0, m1, RPCS, 'method');
      if (store.reset || rpcs.reset) resets.push(name);
    }
    const has = (metric: string) => m1?.some((s) => s.name === metric) === true;
    const perCeremony = (d: { total: number; reset: boolean } | null, metric: string) => (d && !d.reset && has(metric) && attempts > 0 ? d.total / attempts : null);
    const usage: ProcessUsage = {
      name,
      pid: pid ?? 0,
      cpuSeconds: cpu0 != null && cpu1 != null ? cpu1 - cpu0 : NaN,
      peakRssMb: pid ? (readMemoryMb(pid)?.peak ?? NaN) : NaN,
      storeOpsPerCeremony: perCeremony(store, STORE_OPERATIONS),
      rpcsPerCeremony: perCeremony(rpcs, RPCS),
      storeOpsBy: perOp(store?.by, attempts),
      rpcsBy: perOp(rpcs?.by, attempts),
    };
    if (usage.storeOpsPerCeremony !== null) storeTotal = (storeTotal ?? 0) + usage.storeOpsPerCeremony;
    if (usage.rpcsPerCeremony !== null) rpcTotal = (rpcTotal ?? 0) + usage.rpcsPerCeremony;
    processes.push(usage);
  }
  const helperCalls = plan.helperCallsBetween?.(outcome.window.start, outcome.window.end) ?? 0;
  return { ...result, processes, storeOpsPerCeremony: storeTotal, rpcsPerCeremony: rpcTotal, metricsResets: resets, helperCallsInWindow: helperCalls };
}

export async function measureBaselineRun(plan: ScenarioPlan<unknown>, target: BenchTarget, pid: number, loop: LoopOptions): Promise<BaselineRun> {
  resetPeakRss(pid);
  resetPeakRss(process.pid);
  const states = await plan.prepare(target);
  let cpu0 = NaN;
  let cpu1 = NaN;
  const outcome = await runClosedLoop({
    states,
    ...loop,
    iterate: (state, vu, i) => plan.iterate(target, state, vu, i),
    before: plan.before ? (state, vu) => plan.before!(target, state, vu) : undefined,
    onMeasureStart: async () => void (cpu0 = readCpuSeconds(pid) ?? NaN),
    onMeasureEnd: async () => void (cpu1 = readCpuSeconds(pid) ?? NaN),
  });
  return { ...loopResult(outcome), cpuSeconds: cpu1 - cpu0, peakRssMb: readMemoryMb(pid)?.peak ?? NaN };
}

function loopResult(outcome: LoopOutcome): LoopResult {
  return {
    ceremonies: outcome.ceremonies,
    errors: outcome.errors,
    firstError: outcome.firstError,
    seconds: outcome.seconds,
    perSecond: outcome.ceremonies / outcome.seconds,
    latency: computeLatencyStats(outcome.latencies),
    driverCpuSeconds: outcome.driverCpuSeconds,
    driverPeakRssMb: readMemoryMb(process.pid)?.peak ?? NaN,
  };
}

function perOp(by: Record<string, number> | undefined, attempts: number): Record<string, number> {
  if (!by || attempts === 0) return {};
  return Object.fromEntries(Object.entries(by).map(([k, v]) => [k, v / attempts]));
}

/** Scrapes once, then every `ms` until stopped; stop() resolves once no scrape is in flight. */
async function scrapeEvery(probe: Probe, ms: number): Promise<{ stop(): Promise<void> }> {
  let last = snapshot(probe);
  await last;
  const timer = setInterval(() => {
    last = last.then(() => snapshot(probe));
  }, ms);
  return {
    async stop() {
      clearInterval(timer);
      await last;
    },
  };
}

async function snapshot(probe: Probe): Promise<Snapshot> {
  const cpu: Snapshot['cpu'] = {};
  for (const [name, pid] of Object.entries(probe.pids)) cpu[name] = readCpuSeconds(pid);
  const metrics: Snapshot['metrics'] = {};
  await Promise.all(
    Object.entries(probe.metricsUrls).map(async ([name, base]) => {
      try {
        const res = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5000) });
        metrics[name] = res.ok ? parseMetrics(await res.text()) : null;
      } catch {
        metrics[name] = null;
      }
    }),
  );
  return { cpu, metrics };
}
