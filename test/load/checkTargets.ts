/**
 * The team's performance targets as a checklist over one run's results; pure, so it is unit-tested.
 * The targets are stated for a 2-core machine, `npm start` defaults and 32 virtual users; the
 * caller prints under which conditions this run was made.
 */
import type { ScaleResult, ScenarioResult } from './benchResults.js';

export type Verdict = 'PASS' | 'FAIL' | 'NOT RUN';

export interface TargetLine {
  verdict: Verdict;
  target: string;
  measured: string;
}

export const TARGETS = {
  loginPerSecond: 300,
  loginP99Ms: 150,
  registerPerSecond: 150,
  challengePerSecond: 300,
  scaleRatio: 1.2,
  scalePasskeys: 1_000_000,
  storeOpsPerLogin: 6,
  rpcsPerLogin: 2,
  rssMb: 250,
  /** Store memory per stored passkey, so a million fit the machine. */
  storeBytesPerPasskey: 2048,
};

export function checkTargets(results: ScenarioResult[], scale: ScaleResult | null): TargetLine[] {
  const by = (name: string) => results.find((r) => r.scenario === name);
  const lines: TargetLine[] = [];
  const judge = (target: string, value: number | null | undefined, limit: number, direction: 'min' | 'max', unit: string, digits = 1) => {
    if (value === null || value === undefined || Number.isNaN(value)) {
      lines.push({ verdict: 'NOT RUN', target, measured: '-' });
      return;
    }
    const ok = direction === 'min' ? value >= limit : value <= limit;
    lines.push({ verdict: ok ? 'PASS' : 'FAIL', target, measured: `${value.toFixed(digits)}${unit}` });
  };

  for (const name of ['login', 'mediation'] as const) {
    const r = by(name);
    judge(`${name} >= ${TARGETS.loginPerSecond}/s`, r?.stack.perSecond, TARGETS.loginPerSecond, 'min', '/s');
    judge(`${name} p99 <= ${TARGETS.loginP99Ms} ms`, r?.stack.latency.p99, TARGETS.loginP99Ms, 'max', ' ms');
  }
  judge(`register (user creation + B2 + B3) >= ${TARGETS.registerPerSecond}/s`, by('register')?.stack.perSecond, TARGETS.registerPerSecond, 'min', '/s');
  judge(`challenge (B1 + PATCH) >= ${TARGETS.challengePerSecond}/s`, by('challenge')?.stack.perSecond, TARGETS.challengePerSecond, 'min', '/s');

  const scaleTarget = `login p50 at ${scale ? scale.passkeys.toLocaleString('en-US') : 'N'} stored passkeys <= ${TARGETS.scaleRatio} x p50 at 1,000`;
  // A smaller N does not show the stated target; the line says so rather than passing silently.
  const note = scale && scale.passkeys < TARGETS.scalePasskeys ? ` (target is stated at ${TARGETS.scalePasskeys.toLocaleString('en-US')})` : '';
  if (scale) lines.push({ ...verdictFor(scale.ratio <= TARGETS.scaleRatio), target: scaleTarget + note, measured: `${scale.ratio.toFixed(2)} x (${scale.scaledP50Ms.toFixed(1)} / ${scale.baseP50Ms.toFixed(1)} ms)` });
  else lines.push({ verdict: 'NOT RUN', target: scaleTarget, measured: '-' });

  const login = by('login');
  // Counters are read at the window's edges while ceremonies are in flight, so a count per
  // ceremony is off by up to (virtual users ÷ ceremonies in the window): exactly 2 RPCs per login
  // reads as 2.004 in a 20 s run. What lies within that error of the limit is at the limit.
  const edge = login && login.stack.ceremonies > 0 ? login.vus / login.stack.ceremonies : 0;
  const counted = (value: number | null | undefined) => (value === null || value === undefined ? value : Math.max(0, value - edge));
  judge(`<= ${TARGETS.storeOpsPerLogin} store operations per login`, counted(login?.stack.storeOpsPerCeremony), TARGETS.storeOpsPerLogin, 'max', '');
  judge(`<= ${TARGETS.rpcsPerLogin} internal RPCs per login`, counted(login?.stack.rpcsPerCeremony), TARGETS.rpcsPerLogin, 'max', '');

  // The RSS target is stated for the scenario load; under --scale the store holds the seeded
  // passkeys, which the memory-per-passkey line judges instead.
  const peaks = results.map((r) => r.stack).flatMap((run) => run.processes);
  if (peaks.length === 0) lines.push({ verdict: 'NOT RUN', target: `no process above ${TARGETS.rssMb} MB RSS`, measured: '-' });
  else {
    const top = peaks.reduce((a, b) => (b.peakRssMb > a.peakRssMb ? b : a));
    lines.push({ ...verdictFor(top.peakRssMb <= TARGETS.rssMb), target: `no process above ${TARGETS.rssMb} MB RSS`, measured: `highest ${top.name} ${top.peakRssMb.toFixed(0)} MB` });
  }
  const perPasskey = scale?.storeBytesPerPasskey;
  const memoryTarget = `<= ${TARGETS.storeBytesPerPasskey} bytes of store memory per stored passkey (--scale, embedded store)`;
  if (perPasskey === null || perPasskey === undefined) lines.push({ verdict: 'NOT RUN', target: memoryTarget, measured: '-' });
  else lines.push({ ...verdictFor(perPasskey <= TARGETS.storeBytesPerPasskey), target: memoryTarget, measured: `${perPasskey.toFixed(0)} bytes` });
  return lines;
}

function verdictFor(ok: boolean): { verdict: Verdict } {
  return { verdict: ok ? 'PASS' : 'FAIL' };
}
