/**
 * Measures how long the local stack takes to be ready and to recover from a crash:
 *   npx tsx test/load/measure-start-restart.ts [--runs 3] [--kill ceremony,gateway]
 * Each run starts `npm start`, times until it prints "Local stack is up" (every /readyz green and
 * the demo project created), then SIGKILLs each named process in turn and times until its
 * /readyz answers 200 again (the supervisor restarts it). Also prints the CPU time the start took,
 * which depends less on other load than the wall-clock time. `npm start` binds fixed ports, so run it
 * in a network namespace of its own: unshare -n bash -c 'ip link set lo up; npx tsx test/load/…'.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_PORTS } from '../../deploy/local/processes.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    kill: { type: 'string', default: 'ceremony,challenge,connect,gateway' },
    /** Echo npm start's output, each line with the seconds since the run began. */
    verbose: { type: 'boolean', default: false },
  },
});

/** Where each killable process answers /readyz. */
const READY_URLS: Record<string, string> = {
  ceremony: `http://127.0.0.1:${DEFAULT_PORTS.ceremony}/readyz`,
  challenge: `http://127.0.0.1:${DEFAULT_PORTS.challenge}/readyz`,
  connect: `http://127.0.0.1:${DEFAULT_PORTS.connect}/readyz`,
  gateway: `http://127.0.0.1:${DEFAULT_PORTS.frontend}/readyz`,
};
/** The part of a process's command line that names its entry: the TypeScript source or the bundle in .local/build. */
const ENTRY_PATTERNS: Record<string, RegExp> = {
  ceremony: /services\/ceremony\/src\/main\.ts|build\/ceremony\.js/,
  challenge: /services\/challenge\/src\/main\.ts|build\/challenge\.js/,
  connect: /services\/connect\/src\/main\.ts|build\/connect\.js/,
  gateway: /gateway\/src\/main\.ts|build\/gateway\.js/,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(500) })).status === 200;
  } catch {
    return false;
  }
}

/** Descendants of `root` (pid → command line), found through ps so other stacks on the machine are left alone. */
function descendants(root: number): Map<number, string> {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
  const found = new Map<number, string>();
  const queue = [root];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const row of rows.filter((r) => r.ppid === parent)) {
      found.set(row.pid, row.args);
      queue.push(row.pid);
    }
  }
  return found;
}

/**
 * CPU seconds (user + system) that npm start and every process under it used so far, including
 * its exited children: unlike the wall-clock time it hardly depends on what else the machine runs.
 */
function cpuSeconds(root: number): number {
  const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  let ticks = 0;
  for (const [pid, args] of [[root, 'npm start'] as const, ...descendants(root)]) {
    try {
      // Fields after the parenthesised command name: utime, stime, cutime, cstime are 12–15 there.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
      const own = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
      if (values.verbose) process.stdout.write(`${(own / ticksPerSecond).toFixed(2).padStart(6)} CPU s  ${args.slice(0, 100)}\n`);
      ticks += own;
    } catch {
      // Exited meanwhile: its time is in its parent's cutime/cstime once reaped.
    }
  }
  return ticks / ticksPerSecond;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function measureRun(kills: string[]): Promise<{ startMs: number; startCpu: number; restartMs: Record<string, number> }> {
  const began = performance.now();
  const child = spawn('npm', ['start'], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  let output = '';
  const up = new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => {
      output += b.toString();
      if (values.verbose) for (const line of b.toString().split('\n').filter(Boolean)) process.stdout.write(`${((performance.now() - began) / 1000).toFixed(2).padStart(6)} ${line}\n`);
      if (output.includes('Local stack is up')) resolve(performance.now() - began);
    });
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
  });
  try {
    const startMs = await up;
    const startCpu = cpuSeconds(child.pid!);
    const restartMs: Record<string, number> = {};
    for (const name of kills) {
      const entry = [...descendants(child.pid!)].find(([, args]) => ENTRY_PATTERNS[name].test(args));
      if (!entry) throw new Error(`no ${name} process under npm start`);
      const killedAt = performance.now();
      process.kill(entry[0], 'SIGKILL');
      while (alive(entry[0])) await sleep(5);
      while (!(await ready(READY_URLS[name]))) {
        if (performance.now() - killedAt > 60_000) throw new Error(`${name} not ready 60 s after SIGKILL`);
        await sleep(20);
      }
      restartMs[name] = performance.now() - killedAt;
    }
    return { startMs, startCpu, restartMs };
  } finally {
    // npm start stops its processes on SIGTERM; the whole group goes, in case it does not.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  }
}

const kills = values.kill.split(',').filter(Boolean);
for (const name of kills) if (!READY_URLS[name]) throw new Error(`cannot measure ${name}; one of ${Object.keys(READY_URLS).join(', ')}`);
for (let run = 1; run <= Number(values.runs); run++) {
  const { startMs, startCpu, restartMs } = await measureRun(kills);
  const restarts = Object.entries(restartMs).map(([name, ms]) => `${name} ${(ms / 1000).toFixed(2)} s`);
  process.stdout.write(`run ${run}: ready ${(startMs / 1000).toFixed(2)} s (${startCpu.toFixed(2)} CPU s); ready again after SIGKILL: ${restarts.join(', ')}\n`);
}
