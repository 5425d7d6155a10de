import { describe, expect, it } from 'vitest';
import type { ScaleResult, ScenarioResult, StackRun } from './benchResults.js';
import { checkTargets } from './checkTargets.js';
import type { ScenarioName } from './parseBenchArgs.js';

function run(perSecond: number, p99: number, extra: Partial<StackRun> = {}): StackRun {
  return {
    ceremonies: perSecond * 10,
    errors: 0,
    firstError: null,
    seconds: 10,
    perSecond,
    latency: { count: perSecond * 10, p50: p99 / 2, p90: p99 * 0.8, p99, max: p99, mean: p99 / 2 },
    driverCpuSeconds: 1,
    driverPeakRssMb: 100,
    processes: [{ name: 'ceremony', pid: 1, cpuSeconds: 5, peakRssMb: 120, storeOpsPerCeremony: 5, rpcsPerCeremony: 2, storeOpsBy: {}, rpcsBy: {} }],
    storeOpsPerCeremony: 5,
    rpcsPerCeremony: 2,
    metricsResets: [],
    helperCallsInWindow: 0,
    ...extra,
  };
}

const scenario = (name: ScenarioName, stack: StackRun): ScenarioResult => ({ scenario: name, vus: 32, warmupSeconds: 5, stack, baseline: null });
const verdicts = (lines: ReturnType<typeof checkTargets>) => Object.fromEntries(lines.map((l) => [l.target, l.verdict]));

describe('checkTargets', () => {
  it('marks what did not run as NOT RUN', () => {
    const lines = checkTargets([], null);
    expect(lines.every((l) => l.verdict === 'NOT RUN')).toBe(true);
    expect(lines).toHaveLength(11);
  });

  it('passes at the limits and fails beyond them', () => {
    const v = verdicts(
      checkTargets(
        [scenario('login', run(300, 150)), scenario('mediation', run(299.9, 150.1)), scenario('register', run(150, 400)), scenario('challenge', run(10, 10, { storeOpsPerCeremony: 99 }))],
        null,
      ),
    );
    expect(v['login >= 300/s']).toBe('PASS');
    expect(v['login p99 <= 150 ms']).toBe('PASS');
    expect(v['mediation >= 300/s']).toBe('FAIL');
    expect(v['mediation p99 <= 150 ms']).toBe('FAIL');
    expect(v['register (user creation + B2 + B3) >= 150/s']).toBe('PASS');
    expect(v['challenge (B1 + PATCH) >= 300/s']).toBe('FAIL');
    // Store operations and RPCs are judged on the login scenario only.
    expect(v['<= 6 store operations per login']).toBe('PASS');
    expect(v['<= 2 internal RPCs per login']).toBe('PASS');
    expect(v['no process above 250 MB RSS']).toBe('PASS');
  });

  it('fails on too many store operations or RPCs per login and on a process above 250 MB', () => {
    const heavy = run(400, 50, { storeOpsPerCeremony: 6.5, rpcsPerCeremony: 3 });
    heavy.processes[0].peakRssMb = 251;
    const lines = checkTargets([scenario('login', heavy)], null);
    expect(verdicts(lines)['<= 6 store operations per login']).toBe('FAIL');
    expect(verdicts(lines)['<= 2 internal RPCs per login']).toBe('FAIL');
    const rss = lines.find((l) => l.target.startsWith('no process'))!;
    expect(rss).toMatchObject({ verdict: 'FAIL', measured: 'highest ceremony 251 MB' });
  });

  it('counts per login within the window-edge error of the limit as at the limit, not beyond it', () => {
    // 4,365 logins by 32 virtual users: an edge error of up to 32 / 4,365 ≈ 0.0073 per login.
    const edge = (rpcs: number) => verdicts(checkTargets([scenario('login', { ...run(218.25, 150, { rpcsPerCeremony: rpcs }), ceremonies: 4365 })], null))['<= 2 internal RPCs per login'];
    expect(edge(2.004)).toBe('PASS');
    expect(edge(2.01)).toBe('FAIL');
  });

  it('judges the scale ratio and says when N is below the stated 1,000,000', () => {
    const scale = (passkeys: number, scaledP50: number): ScaleResult => ({
      passkeys,
      baseP50Ms: 10,
      scaledP50Ms: scaledP50,
      ratio: scaledP50 / 10,
      base: run(300, 20),
      scaled: run(300, 20),
      seedSeconds: 1,
      storeRssMbAfterSeed: null,
      storeBytesPerPasskey: null,
      seedCheck: 'ok',
    });
    const small = checkTargets([], scale(20_000, 12)).find((l) => l.target.startsWith('login p50'))!;
    expect(small.verdict).toBe('PASS');
    expect(small.target).toContain('(target is stated at 1,000,000)');
    const big = checkTargets([], scale(1_000_000, 12.1)).find((l) => l.target.startsWith('login p50'))!;
    expect(big.verdict).toBe('FAIL');
    expect(big.target).not.toContain('stated at');
  });

  it('judges store memory per passkey from the scale run, and RSS on the scenario runs only', () => {
    const scaled = (bytes: number | null): ScaleResult => {
      const big = run(300, 20);
      big.processes = [{ ...big.processes[0], name: 'mongo', peakRssMb: 5600 }];
      return { passkeys: 1_000_000, baseP50Ms: 10, scaledP50Ms: 10, ratio: 1, base: run(300, 20), scaled: big, seedSeconds: 1, storeRssMbAfterSeed: 5600, storeBytesPerPasskey: bytes, seedCheck: 'ok' };
    };
    const memory = (bytes: number | null) => checkTargets([scenario('login', run(300, 150))], scaled(bytes)).find((l) => l.target.includes('per stored passkey'))!;
    expect(memory(2048).verdict).toBe('PASS');
    expect(memory(5732)).toMatchObject({ verdict: 'FAIL', measured: '5732 bytes' });
    expect(memory(null).verdict).toBe('NOT RUN');
    // The seeded store's 5.6 GB is not the scenario load's RSS.
    expect(verdicts(checkTargets([scenario('login', run(300, 150))], scaled(5732)))['no process above 250 MB RSS']).toBe('PASS');
  });
});
