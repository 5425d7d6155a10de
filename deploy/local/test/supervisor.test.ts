/** The supervisor's restart policy: a crashed process comes back at once, a crash loop backs off. */
import { afterEach, describe, expect, it } from 'vitest';
import { restartDelayMs, Supervisor, type ProcessSpec } from '../supervisor.js';

/** A process that prints its pid and then waits to be killed. */
const sleeper: ProcessSpec = {
  name: 'sleeper',
  command: process.execPath,
  args: ['-e', 'console.log(`pid ${process.pid}`); setInterval(() => {}, 1000);'],
  ready: (lines) => lines.some((l) => l.startsWith('pid ')),
};

const pidsIn = (lines: string[]) => lines.flatMap((l) => /\| pid (\d+)$/.exec(l)?.slice(1) ?? []).map(Number);

describe('restartDelayMs', () => {
  it('restarts the first time without waiting, then doubles from 250 ms up to 30 s', () => {
    expect([1, 2, 3, 4, 5].map(restartDelayMs)).toEqual([0, 250, 500, 1000, 2000]);
    expect(restartDelayMs(8)).toBe(16_000);
    expect(restartDelayMs(9)).toBe(30_000);
    expect(restartDelayMs(100)).toBe(30_000);
  });
});

describe('Supervisor', () => {
  let supervisor: Supervisor | undefined;
  afterEach(async () => {
    await supervisor?.stop();
  });

  it('starts a process again after it is killed, and says it restarts without a delay', async () => {
    const out: string[] = [];
    supervisor = new Supervisor((line) => out.push(line));
    await supervisor.start(sleeper);
    const [first] = pidsIn(out);
    process.kill(first, 'SIGKILL');
    await expect.poll(() => pidsIn(out).length, { timeout: 10_000 }).toBe(2);
    expect(pidsIn(out)[1]).not.toBe(first);
    expect(out.some((l) => l.endsWith('exited (SIGKILL); restarting'))).toBe(true);
  });

  it('keeps a process stopped with stopOne down until restartOne', async () => {
    const out: string[] = [];
    supervisor = new Supervisor((line) => out.push(line));
    await supervisor.start(sleeper);
    await supervisor.stopOne('sleeper');
    expect(out.some((l) => l.includes('restarting'))).toBe(false);
    await supervisor.restartOne('sleeper');
    expect(pidsIn(out)).toHaveLength(2);
  });
});
