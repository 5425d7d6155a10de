/**
 * How fast this machine is right now: a fixed CPU workload (chained SHA-256 over 64 bytes, then
 * building and serializing small objects, single-threaded) timed in a fresh node process.
 *
 * On a shared host the same build's results move with the machine: on the 2-core development VM
 * this workload took from about 0.35 s to over 0.7 s on different stretches of one day, and the CPU
 * per login moved with it. The bench times it before the stack starts and again after each
 * scenario, while the stack is idle, so a reader can tell a slower build from a busier host. A
 * fresh process each time, so every measure includes the same compilation and none is warmer.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

const WORKLOAD = `
const { createHash } = await import('node:crypto');
const start = process.hrtime.bigint();
let x = Buffer.alloc(64);
for (let i = 0; i < 200000; i++) x = createHash('sha256').update(x).digest();
const objects = [];
for (let i = 0; i < 300000; i++) objects.push({ a: i, b: String(i) });
JSON.stringify(objects.slice(0, 100000));
process.stdout.write(String(Number(process.hrtime.bigint() - start) / 1e6));
`;

/** Milliseconds the workload took; NaN if the child could not run it (the bench goes on without). */
export async function measureHostSpeed(): Promise<number> {
  try {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', WORKLOAD], { timeout: 30_000 });
    const ms = Number(stdout.trim());
    return Number.isFinite(ms) && ms > 0 ? ms : NaN;
  } catch {
    return NaN;
  }
}

/** The report's line for one measure. */
export function formatHostSpeed(when: string, ms: number): string {
  return `host check (${when}): the fixed CPU workload took ${Number.isFinite(ms) ? `${Math.round(ms)} ms` : '- (could not run)'}`;
}
