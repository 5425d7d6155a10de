/** The supervisor's restart policy: a crashed process comes back at once, a crash loop backs off. */
import { stripVTControlCharacters } from 'node:util';
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

  it('does not restart a process that exits cleanly (code 0) on its own', async () => {
    const out: string[] = [];
    supervisor = new Supervisor((line) => out.push(line));
    await supervisor.start({ ...sleeper, name: 'once', args: ['-e', 'console.log(`pid ${process.pid}`); setTimeout(() => process.exit(0), 200);'] });
    await expect.poll(() => out.some((l) => l.endsWith('exited cleanly; not restarting')), { timeout: 10_000 }).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    expect(pidsIn(out)).toHaveLength(1);
  });

  it("a process running handleShutdown stops by itself when its supervisor's pipe closes", async () => {
    const out: string[] = [];
    supervisor = new Supervisor((line) => out.push(line));
    const script = [
      "const { handleShutdown } = await import('./services/runtime/lifecycle.ts');",
      "const logger = { info: (...a) => console.log(JSON.stringify(a)), error: () => {} };",
      'handleShutdown({ logger, servers: [], markNotReady: () => {}, drainMs: 0, close: async () => {} });',
      'console.log(`pid ${process.pid}`); setInterval(() => {}, 1000);',
    ].join('\n');
    await supervisor.start({ ...sleeper, name: 'watcher', args: ['--import', 'tsx', '--input-type=module', '-e', script] }, 30_000);
    const [pid] = pidsIn(out);
    // What the supervisor's death does to the pipe, without killing the test's own process.
    (supervisor as unknown as { children: Map<string, { stdin: { end(): void } }> }).children.get('watcher')!.stdin.end();
    await expect.poll(() => out.some((l) => l.includes('supervisor gone')), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
  });
});

describe('Supervisor.stop with a stopLast process (the store)', () => {
  it('stops it only after the others have exited, however long they take to stop', async () => {
    const out: string[] = [];
    const supervisor = new Supervisor((line) => out.push(line));
    // Started first, as the store is: start order alone must not decide the stop order.
    await supervisor.start({ ...sleeper, name: 'store', stopLast: true });
    // Takes 400 ms to stop, as a service draining and flushing its batch does.
    const slow = "process.on('SIGTERM', () => setTimeout(() => process.exit(0), 400)); console.log(`pid ${process.pid}`); setInterval(() => {}, 1000);";
    await supervisor.start({ ...sleeper, name: 'service', args: ['-e', slow] });
    await supervisor.stop();
    const stopped = out.filter((l) => / stopped \(/.test(l)).map((l) => stripVTControlCharacters(l.split('|')[0]).trim());
    expect(stopped).toEqual(['service', 'store']);
  });

  it('runs it in its own process group, out of reach of a signal to the supervisor’s group', async () => {
    const out: string[] = [];
    const supervisor = new Supervisor((line) => out.push(line));
    try {
      await supervisor.start({ ...sleeper, name: 'store', stopLast: true });
      await supervisor.start({ ...sleeper, name: 'service' });
      const [storePid, servicePid] = pidsIn(out);
      // A process group with the store's pid exists only if the store leads its own group.
      expect(() => process.kill(-storePid, 0)).not.toThrow();
      expect(() => process.kill(-servicePid, 0)).toThrow();
    } finally {
      await supervisor.stop();
    }
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
