/**
 * --webhooks: login and registration rates without, with and again without a webhook endpoint
 * subscribed to every event type (issue #31: "ceremonies no slower with webhooks on", within
 * 10 %), plus what the endpoint received while the load ran: deliveries per second and the
 * delivery lag (the payload's `timestamp`, when the producer recorded the event, to the moment
 * the receiver had the body), p50/p99. The receiver is a loopback HTTP server in the bench process
 * (test/kit/verifyingWebhookReceiver.ts) verifying every delivery with `standardwebhooks`; its CPU is in
 * the driver's figure. Without/with/without brackets the run with the endpoint, so a drift of the
 * host (or of the stack's warm-up) during the comparison shows as a difference of the two
 * "without" runs.
 */
import { performance } from 'node:perf_hooks';
import { EVENT_TYPES } from '../../services/events/src/domain/eventTypes.js';
import { VerifyingWebhookReceiver } from '../kit/verifyingWebhookReceiver.js';
import type { StackRun } from './benchResults.js';
import { computeLatencyStats, type LatencyStats } from './computeLatencyStats.js';
import { expectOk } from './createJsonClient.js';
import { defineScenario, type ScenarioPlan } from './defineScenarios.js';
import { measureStackRun, type LoopOptions, type Probe } from './measureScenario.js';
import type { BenchTarget } from './registerPasskeyUser.js';

/** The producers' cache time under npm start is 500 ms: after this, none writes for a deleted endpoint. */
const FORGET_MS = 2000;
/** Deliveries are done when none arrived for this long (at most DRAIN_LIMIT_MS). */
const QUIET_MS = 3000;
const DRAIN_LIMIT_MS = 120_000;
export const WEBHOOK_SCENARIOS = ['login', 'register'] as const;
/** The most "with" may be slower than the mean of the two "without" runs. */
export const WEBHOOK_TOLERANCE = 0.1;

export interface WebhookScenarioResult {
  scenario: (typeof WEBHOOK_SCENARIOS)[number];
  without: [StackRun, StackRun];
  with: StackRun;
  /** with.perSecond / mean of the two without runs. */
  ratio: number;
  /** Deliveries received inside the measured window of the run with the endpoint. */
  deliveriesInWindow: number;
  deliveriesPerSecond: number;
  /** Events recorded in that window (distinct webhook-id), and their lag to the first delivery. */
  eventsInWindow: number;
  lagMs: LatencyStats;
  /** Seconds from the window's end until the endpoint stopped receiving. */
  drainSeconds: number;
}

export interface WebhookResult {
  eventTypes: string[];
  scenarios: WebhookScenarioResult[];
  /** Deliveries whose signature did not verify (must be 0), and why the first did not. */
  unverified: number;
  firstUnverified: string | null;
}

/** The plan, also telling the window's edges (performance.now()) the loop measured. */
function withWindow<S>(plan: ScenarioPlan<S>): { plan: ScenarioPlan<S>; window: () => { start: number; end: number } } {
  let window = { start: NaN, end: NaN };
  return {
    plan: {
      ...plan,
      helperCallsBetween(from, to) {
        window = { start: from, end: to };
        if (process.env.BENCH_CPU_PROF_DIR) {
          // The window on CLOCK_MONOTONIC in µs, the clock of the processes' CPU profiles
          // (startBenchStack.ts), for test/load/summarizeCpuProfile.mjs --from/--to.
          const nowUs = Number(process.hrtime.bigint() / 1000n);
          const at = (t: number) => Math.round(nowUs - (performance.now() - t) * 1000);
          console.error(`window-monotonic-us ${at(from)} ${at(to)}`);
        }
        return plan.helperCallsBetween?.(from, to) ?? 0;
      },
    },
    window: () => window,
  };
}

export async function runWebhookComparison(o: { vus: number; loop: LoopOptions; target: BenchTarget; probe: () => Probe; tag: string; say: (line: string) => void }): Promise<WebhookResult> {
  const receiver = new VerifyingWebhookReceiver();
  await receiver.start();
  const runSeconds = o.loop.warmupSeconds + o.loop.durationSeconds;
  const run = (scenario: (typeof WEBHOOK_SCENARIOS)[number], label: string) => {
    o.say(`webhooks: ${scenario} ${label} …`);
    const measured = withWindow(defineScenario(scenario, { vus: o.vus, runSeconds, tag: `${o.tag}w${label.replace(/\W/g, '')}` }));
    return measureStackRun(measured.plan, o.target, o.probe(), o.loop).then((r) => ({ run: r, window: measured.window() }));
  };
  const results: WebhookScenarioResult[] = [];
  try {
    for (const scenario of WEBHOOK_SCENARIOS) {
      const before = await run(scenario, 'without endpoint');
      const created = await expectOk('create webhook endpoint', o.target.client.call('POST', '/v2/webhookEndpoints', { url: receiver.url, subscribedEvents: [...EVENT_TYPES] }));
      receiver.secret = created.signingSecret as string;
      const first = receiver.received.length;
      const during = await run(scenario, 'with endpoint');
      // Wait until the backlog is delivered, then count what the window's events got.
      const drainFrom = Date.now();
      let last = receiver.received.length;
      let quietSince = Date.now();
      while (Date.now() - quietSince < QUIET_MS && Date.now() - drainFrom < DRAIN_LIMIT_MS) {
        await new Promise((r) => setTimeout(r, 250));
        if (receiver.received.length !== last) {
          last = receiver.received.length;
          quietSince = Date.now();
        }
      }
      const drainSeconds = (quietSince - drainFrom) / 1000;
      await expectOk('delete webhook endpoint', o.target.client.call('DELETE', `/v2/webhookEndpoints/${created.id as string}`));
      await new Promise((r) => setTimeout(r, FORGET_MS));
      const after = await run(scenario, 'without endpoint again');

      // The window on the wall clock (the payload's timestamp and receivedAt are Date.now() times).
      const start = performance.timeOrigin + during.window.start;
      const end = performance.timeOrigin + during.window.end;
      const ours = receiver.received.slice(first);
      const inWindow = ours.filter((r) => r.receivedAt >= start && r.receivedAt <= end);
      const firstDelivery = new Map<string, number>();
      const recorded = new Map<string, number>();
      for (const r of ours) {
        const at = r.payload ? Date.parse(r.payload.timestamp) : NaN;
        if (!(at >= start && at <= end)) continue;
        recorded.set(r.id, at);
        if (!firstDelivery.has(r.id)) firstDelivery.set(r.id, r.receivedAt);
      }
      const lags = [...firstDelivery].map(([id, receivedAt]) => receivedAt - recorded.get(id)!);
      const seconds = (during.window.end - during.window.start) / 1000;
      results.push({
        scenario,
        without: [before.run, after.run],
        with: during.run,
        ratio: during.run.perSecond / ((before.run.perSecond + after.run.perSecond) / 2),
        deliveriesInWindow: inWindow.length,
        deliveriesPerSecond: inWindow.length / seconds,
        eventsInWindow: recorded.size,
        lagMs: computeLatencyStats(lags),
        drainSeconds,
      });
    }
  } finally {
    await receiver.stop();
  }
  return { eventTypes: [...EVENT_TYPES], scenarios: results, unverified: receiver.unverified, firstUnverified: receiver.firstUnverified };
}

const num = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '-');

/** Each process's CPU per ceremony in the three runs, so the delivery side's cost shows beside the ceremony path's. */
function cpuSplit(s: WebhookScenarioResult): string {
  const runs = [s.without[0], s.with, s.without[1]];
  const perCeremony = (r: (typeof runs)[number], name: string) => {
    const cpu = name === 'driver' ? r.driverCpuSeconds : r.processes.find((p) => p.name === name)?.cpuSeconds;
    return cpu === undefined || r.ceremonies === 0 ? NaN : (cpu * 1000) / r.ceremonies;
  };
  const names = [...new Set(runs.flatMap((r) => r.processes.map((p) => p.name))), 'driver'];
  return names
    .map((name) => {
      const [a, b, c] = runs.map((r) => perCeremony(r, name)) as [number, number, number];
      const delta = b - (a + c) / 2;
      return `${name} ${num(a, 2)} / ${num(b, 2)} / ${num(c, 2)} (${delta >= 0 ? '+' : ''}${num(delta, 2)})`;
    })
    .join(', ');
}

export function formatWebhooks(w: WebhookResult): string {
  const out = [`== webhooks: one endpoint subscribed to ${w.eventTypes.join(', ')}; receiver on loopback in the bench process ==`];
  for (const s of w.scenarios) {
    const verdict = s.ratio >= 1 - WEBHOOK_TOLERANCE ? 'PASS' : 'FAIL';
    out.push(
      `${s.scenario}: ${num(s.without[0].perSecond)}/s without, ${num(s.with.perSecond)}/s with, ${num(s.without[1].perSecond)}/s without again ` +
        `(p50 ${num(s.without[0].latency.p50, 0)} / ${num(s.with.latency.p50, 0)} / ${num(s.without[1].latency.p50, 0)} ms; ` +
        `store ops/cer. ${num(s.without[0].storeOpsPerCeremony ?? NaN, 2)} / ${num(s.with.storeOpsPerCeremony ?? NaN, 2)} / ${num(s.without[1].storeOpsPerCeremony ?? NaN, 2)}) ` +
        `-> with / without ${num(s.ratio, 3)} ${verdict} (within ${WEBHOOK_TOLERANCE * 100} %)`,
    );
    out.push(
      `  deliveries: ${s.deliveriesInWindow} in the ${num(s.with.seconds)} s window (${num(s.deliveriesPerSecond)}/s); ${s.eventsInWindow} events recorded in it, ` +
        `lag event recorded -> received p50 ${num(s.lagMs.p50, 0)} ms, p99 ${num(s.lagMs.p99, 0)} ms, max ${num(s.lagMs.max, 0)} ms; backlog drained ${num(s.drainSeconds)} s after the window`,
    );
    out.push(`  CPU ms per ${s.scenario} by process, without / with / without again (with minus the mean without): ${cpuSplit(s)}`);
  }
  out.push(`deliveries that did not verify with standardwebhooks: ${w.unverified}${w.firstUnverified ? ` (first: ${w.firstUnverified})` : ''}`);
  return out.join('\n');
}
