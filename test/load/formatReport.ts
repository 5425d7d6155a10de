/** The bench's printed report: a table per scenario, the scale comparison and the target checklist. */
import type { LoopResult, ScaleResult, ScenarioResult, StackRun } from './benchResults.js';
import type { TargetLine } from './checkTargets.js';

export const CEREMONY_STEPS: Record<string, string> = {
  login: 'B4 + B5',
  mediation: 'B6 + B7',
  register: 'POST /v2/users + B2 + B3',
  challenge: 'B1 + PATCH',
  'connect-login': 'F5 init + F8 start + F9 finish (frontend API)',
};

const num = (v: number | null | undefined, digits = 1) => (v === null || v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(digits));

function row(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
}

/**
 * CPU milliseconds per finished ceremony (successes and errors, like the store operations and RPCs
 * per ceremony), so a run that only failed still shows what each attempt cost.
 */
export function msPerCeremony(cpuSeconds: number, r: LoopResult): number {
  const attempts = r.ceremonies + r.errors;
  return attempts > 0 ? (cpuSeconds / attempts) * 1000 : NaN;
}

function loopRow(label: string, r: LoopResult, cpuSeconds: number): string[] {
  return [label, num(r.perSecond), num(r.latency.p50), num(r.latency.p90), num(r.latency.p99), num(r.latency.max), String(r.ceremonies), String(r.errors), num(msPerCeremony(cpuSeconds, r), 2)];
}

/** CPU of the stack's processes in the window; NaN when none could be read (--url). */
export function stackCpuSeconds(run: StackRun): number {
  const read = run.processes.filter((p) => !Number.isNaN(p.cpuSeconds));
  return read.length ? read.reduce((sum, p) => sum + p.cpuSeconds, 0) : NaN;
}

export function formatScenario(r: ScenarioResult): string {
  const out: string[] = [];
  const s = r.stack;
  out.push(`== ${r.scenario}: ${CEREMONY_STEPS[r.scenario]}   (${r.vus} virtual users, ${r.warmupSeconds} s warm-up, ${s.seconds.toFixed(1)} s measured) ==`);
  const w1 = [9, 12, 8, 8, 8, 8, 7, 7, 13];
  out.push(row(['', 'ceremonies/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'ok', 'errors', 'CPU ms/cer.'], w1));
  out.push(row(loopRow('stack', s, stackCpuSeconds(s)), w1));
  if (r.baseline) {
    out.push(row(loopRow('baseline', r.baseline, r.baseline.cpuSeconds), w1));
    const b = r.baseline;
    const cpuRatio = msPerCeremony(stackCpuSeconds(s), s) / msPerCeremony(b.cpuSeconds, b);
    out.push(`stack / baseline: ${num(s.perSecond / b.perSecond, 3)} x ceremonies/s, ${num(s.latency.p50 / b.latency.p50, 2)} x p50, ${num(cpuRatio, 2)} x CPU per ceremony`);
  }
  out.push('');
  const w2 = [10, 8, 12, 12, 15, 10];
  out.push(row(['process', 'CPU s', 'CPU ms/cer.', 'peak RSS MB', 'store ops/cer.', 'RPCs/cer.'], w2));
  for (const p of s.processes) out.push(row([p.name, num(p.cpuSeconds, 2), num(msPerCeremony(p.cpuSeconds, s), 2), num(p.peakRssMb, 0), num(p.storeOpsPerCeremony, 2), num(p.rpcsPerCeremony, 2)], w2));
  const cpu = stackCpuSeconds(s);
  out.push(row(['total', num(cpu, 2), num(msPerCeremony(cpu, s), 2), '', num(s.storeOpsPerCeremony, 2), num(s.rpcsPerCeremony, 2)], w2));
  out.push(row(['driver', num(s.driverCpuSeconds, 2), num(msPerCeremony(s.driverCpuSeconds, s), 2), num(s.driverPeakRssMb, 0), '', ''], w2));
  for (const p of s.processes) {
    const ops = breakdown(p.storeOpsBy);
    const rpcs = breakdown(p.rpcsBy);
    if (ops || rpcs) out.push(`  ${p.name}: ${[ops && `store ${ops}`, rpcs && `RPCs ${rpcs}`].filter(Boolean).join('; ')}`);
  }
  if (s.helperCallsInWindow > 0) out.push(`note: ${s.helperCallsInWindow} untimed user creations ran inside the window (the prepared users ran out); their store operations and RPCs are in the figures above`);
  if (s.metricsResets.length) out.push(`note: counters went backwards (a restart?) in ${s.metricsResets.join(', ')}; their per-ceremony figures are left out`);
  if (s.firstError) out.push(`first error (stack): ${s.firstError}`);
  if (r.baseline?.firstError) out.push(`first error (baseline): ${r.baseline.firstError}`);
  return out.join('\n');
}

function breakdown(by: Record<string, number>): string {
  return Object.entries(by)
    .sort(([, a], [, b]) => b - a)
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(', ');
}

export function formatScale(s: ScaleResult): string {
  return [
    `== scale: login p50 at 1,000 and at ${s.passkeys.toLocaleString('en-US')} stored passkeys in one project ==`,
    `seed check: ${s.seedCheck}`,
    `seeding took ${s.seedSeconds.toFixed(1)} s`,
    `store RSS after seeding: ${s.storeRssMbAfterSeed === null ? 'n/a (external MONGODB_URI)' : `${s.storeRssMbAfterSeed.toFixed(0)} MB`}` +
      (s.storeBytesPerPasskey === null ? '' : `, ${s.storeBytesPerPasskey.toFixed(0)} bytes per added passkey (with its user, handle, client environment and events)`),
    row(['stored passkeys', 'ceremonies/s', 'p50 ms', 'p90 ms', 'p99 ms', 'errors', 'store ops/cer.'], [16, 12, 8, 8, 8, 7, 15]),
    row(['1,000', num(s.base.perSecond), num(s.base.latency.p50), num(s.base.latency.p90), num(s.base.latency.p99), String(s.base.errors), num(s.base.storeOpsPerCeremony, 2)], [16, 12, 8, 8, 8, 7, 15]),
    row([s.passkeys.toLocaleString('en-US'), num(s.scaled.perSecond), num(s.scaled.latency.p50), num(s.scaled.latency.p90), num(s.scaled.latency.p99), String(s.scaled.errors), num(s.scaled.storeOpsPerCeremony, 2)], [16, 12, 8, 8, 8, 7, 15]),
    `p50 ratio: ${num(s.ratio, 2)} x`,
    ...(s.scaled.firstError ? [`first error: ${s.scaled.firstError}`] : s.base.firstError ? [`first error: ${s.base.firstError}`] : []),
  ].join('\n');
}

export function formatTargets(lines: TargetLine[]): string {
  const width = Math.max(...lines.map((l) => l.target.length));
  return lines.map((l) => `${l.verdict.padEnd(7)} ${l.target.padEnd(width)}  ${l.measured}`).join('\n');
}
