import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScenarioPlan } from './defineScenarios.js';
import { measureStackRun } from './measureScenario.js';
import type { BenchTarget } from './registerPasskeyUser.js';

/** A /metrics endpoint with one counter; `events` records the order of scrapes and ceremonies. */
async function metricsServer(events: string[]): Promise<{ url: string; server: Server }> {
  let scrapes = 0;
  const server = createServer((req, res) => {
    events.push('scrape');
    scrapes++;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`store_operation_duration_seconds_count{operation="find"} ${scrapes}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('a measured stack run', () => {
  let server: Server | null = null;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('scrapes /metrics before the load and through the warm-up, and diffs the window between its edges', async () => {
    const events: string[] = [];
    const started = await metricsServer(events);
    server = started.server;
    const plan: ScenarioPlan<null> = {
      prepare: async () => [null],
      iterate: async () => {
        events.push('ceremony');
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
    };
    const target = {} as BenchTarget;
    const run = await measureStackRun(plan, target, { pids: {}, metricsUrls: { ceremony: started.url } }, { warmupSeconds: 0.6, durationSeconds: 0.2, warmupScrapeSeconds: 0.1 });

    // A scrape before any ceremony, more during the warm-up (every 0.1 s; a busy machine runs
    // late timers once, not once per missed tick, so at least two of the five are asked for),
    // then the two at the window's edges.
    expect(events[0]).toBe('scrape');
    expect(events[1]).toBe('ceremony');
    expect(events.filter((e) => e === 'scrape').length).toBeGreaterThanOrEqual(5);
    // The window's counters are diffed between the two edge scrapes (one apart), not from an earlier one.
    expect(run.ceremonies).toBeGreaterThan(0);
    expect(run.storeOpsPerCeremony).toBeCloseTo(1 / run.ceremonies, 6);
  });
});
