/**
 * Runs the local stack's processes: prefixes their output with their name, waits until each is
 * ready, restarts one that crashes (at once the first time, then with backoff), and stops all of
 * them on shutdown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { SUPERVISED_ENV } from '../../services/runtime/lifecycle.js';

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** Resolves when the process is ready to serve; given the lines it printed so far. */
  ready: (lines: string[]) => Promise<boolean> | boolean;
  /**
   * The store the others write to: stopped only after every other process has exited, since the
   * services write what they still hold (the ceremony service's event batch) while they stop.
   * It runs in its own process group, so a Ctrl-C in the terminal (SIGINT to the whole group) or a
   * `kill -- -PGID` reaches the supervisor and the services but not it; the supervisor stops it
   * last. (Telling it to ignore SIGINT would not cover a group SIGTERM.) It must then stop by
   * itself when the supervisor's stdin pipe closes, since no group signal reaches it any more.
   */
  stopLast?: boolean;
}

const COLORS = [36, 35, 33, 32, 34, 31];
/** How often `ready` is asked: a process is usable within this much of being ready. */
const READY_POLL_MS = 50;
/** A process that ran this long before exiting was not crash-looping: its next restart is immediate again. */
const STABLE_MS = 10_000;

/**
 * Wait before the n-th restart in a row (n ≥ 1): none for the first, so a crash costs only the
 * process's start-up; then 250 ms doubling up to 30 s, so a process that keeps crashing does not
 * spin.
 */
export function restartDelayMs(restarts: number): number {
  return restarts <= 1 ? 0 : Math.min(30_000, 250 * 2 ** (restarts - 2));
}

export class Supervisor {
  private readonly children = new Map<string, ChildProcess>();
  private readonly specs = new Map<string, { spec: ProcessSpec; timeoutMs: number }>();
  /** Processes stopped on purpose (stopOne), which are not restarted. */
  private readonly held = new Set<string>();
  private stopping = false;
  private colorIndex = 0;

  constructor(private readonly out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)) {}

  /** Starts the process and resolves once `ready` says so; rejects if it exits first or takes too long. */
  async start(spec: ProcessSpec, timeoutMs = 60_000): Promise<void> {
    // A start that was still pending when stop() ran (e.g. Ctrl-C during `npm start`) must not
    // leave a process behind.
    if (this.stopping) throw new Error(`not starting ${spec.name}: stopping`);
    this.specs.set(spec.name, { spec, timeoutMs });
    this.held.delete(spec.name);
    const color = COLORS[this.colorIndex++ % COLORS.length];
    const prefix = `\x1b[${color}m${spec.name.padEnd(10)}\x1b[0m|`;
    let restarts = 0;
    const launch = (): Promise<void> => {
      const lines: string[] = [];
      const launchedAt = Date.now();
      // stdin is a pipe the child watches: it stops when the pipe closes, so no process outlives
      // its supervisor however the supervisor ends (handleShutdown in services/runtime/lifecycle.ts).
      const child = spawn(spec.command, spec.args, { env: { ...process.env, ...spec.env, [SUPERVISED_ENV]: '1' }, stdio: ['pipe', 'pipe', 'pipe'], detached: spec.stopLast === true });
      child.stdin!.on('error', () => undefined);
      this.children.set(spec.name, child);
      for (const stream of [child.stdout!, child.stderr!]) {
        createInterface({ input: stream }).on('line', (line) => {
          lines.push(line);
          if (lines.length > 200) lines.shift();
          this.out(`${prefix} ${line}`);
        });
      }
      child.once('exit', (code, signal) => {
        this.children.delete(spec.name);
        // Said while stopping, so the order the stack went down in can be read (the store last).
        if (this.stopping) this.out(`${prefix} stopped (${signal ?? `code ${code}`})`);
        if (this.stopping || this.held.has(spec.name)) return;
        // A clean exit is the process's own decision (e.g. it was sent SIGTERM directly): not a crash.
        if (code === 0 && signal === null) {
          this.out(`${prefix} exited cleanly; not restarting`);
          return;
        }
        restarts = Date.now() - launchedAt >= STABLE_MS ? 1 : restarts + 1;
        const delay = restartDelayMs(restarts);
        this.out(`${prefix} exited (${signal ?? `code ${code}`}); ${delay ? `restarting in ${delay} ms` : 'restarting'}`);
        setTimeout(() => {
          if (!this.stopping && !this.held.has(spec.name)) launch().catch((err) => this.out(`${prefix} restart failed: ${(err as Error).message}`));
        }, delay).unref();
      });
      return this.waitReady(spec, child, lines, timeoutMs);
    };
    await launch();
  }

  private async waitReady(spec: ProcessSpec, child: ChildProcess, lines: string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${spec.name} exited before it was ready`);
      if (await Promise.resolve(spec.ready(lines)).catch(() => false)) return;
      await new Promise((r) => setTimeout(r, READY_POLL_MS));
    }
    throw new Error(`${spec.name} was not ready after ${timeoutMs} ms`);
  }

  /** The operating-system pid of the named process while it runs (for resource measurements, e.g. `npm run bench`). */
  pidOf(name: string): number | undefined {
    return this.children.get(name)?.pid;
  }

  /** Stops one process and keeps it stopped (to test how the others cope). */
  async stopOne(name: string): Promise<void> {
    this.held.add(name);
    const child = this.children.get(name);
    if (child) await terminate(child, 10_000);
  }

  /** Starts a process stopped with stopOne again and waits until it is ready. */
  async restartOne(name: string): Promise<void> {
    const entry = this.specs.get(name);
    if (!entry) throw new Error(`unknown process ${name}`);
    await this.start(entry.spec, entry.timeoutMs);
  }

  /**
   * SIGTERM to every process, SIGKILL to any still running after the grace period; the processes
   * marked stopLast (the store) only once all the others have exited, so none loses a write it
   * makes while stopping.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    const last = (name: string) => this.specs.get(name)?.spec.stopLast === true;
    const running = [...this.children.entries()];
    await Promise.all(running.filter(([name]) => !last(name)).map(([, child]) => terminate(child, graceMs)));
    await Promise.all(running.filter(([name]) => last(name)).map(([, child]) => terminate(child, graceMs)));
  }
}

function terminate(child: ChildProcess, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
