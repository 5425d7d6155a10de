/**
 * Runs the embedded store's CLI as a real child process (`node --import tsx cli.ts`), so tests can
 * SIGTERM or SIGKILL it. Node runs the CLI directly (no npx/tsx wrapper process), so the child's
 * pid is the server's pid and a signal reaches the server itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI_PATH = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
/** The package's folder, so `--import tsx` resolves the tsx it depends on (hoisted by npm workspaces or its own). */
const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CliProcess {
  child: ChildProcess;
  /** The first stdout line, e.g. `listening on mongodb://127.0.0.1:40123`. */
  line: string;
  uri: string;
  port: number;
  stdout(): string;
  stderr(): string;
  /** Settles when the process has exited. */
  exited: Promise<Exit>;
}

function spawnRaw(args: string[]): { child: ChildProcess; stdout: () => string; stderr: () => string; exited: Promise<Exit> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI_PATH, ...args], {
    cwd: PACKAGE_ROOT,
    // A pipe the test can close (--stop-with-stdin); the CLI does not read it otherwise.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
  // 'close' (not 'exit') waits for the pipes to drain too, so stdout()/stderr() are complete.
  const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Starts the CLI and resolves once it printed its `listening on` line. */
export async function startCli(args: string[], timeoutMs = 20_000): Promise<CliProcess> {
  const p = spawnRaw(args);
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      p.child.kill('SIGKILL');
      reject(new Error(`CLI did not start within ${timeoutMs} ms; stderr: ${p.stderr()}`));
    }, timeoutMs);
    const onData = () => {
      const nl = p.stdout().indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      p.child.stdout!.off('data', onData);
      resolve(p.stdout().slice(0, nl));
    };
    p.child.stdout!.on('data', onData);
    void p.exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`CLI exited (${e.code ?? e.signal}) before listening; stderr: ${p.stderr()}`));
    });
  });
  const m = /^listening on (mongodb:\/\/127\.0\.0\.1:(\d+))$/.exec(line);
  if (!m) {
    p.child.kill('SIGKILL');
    throw new Error(`unexpected first line from the CLI: ${JSON.stringify(line)}`);
  }
  return { child: p.child, line, uri: m[1], port: Number(m[2]), stdout: p.stdout, stderr: p.stderr, exited: p.exited };
}

/** Runs the CLI to completion (for arguments that make it exit by itself). */
export async function runCli(args: string[], timeoutMs = 20_000): Promise<Exit & { stdout: string; stderr: string }> {
  const p = spawnRaw(args);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  const exit = await p.exited;
  clearTimeout(timer);
  return { ...exit, stdout: p.stdout(), stderr: p.stderr() };
}

/** Sends a signal and waits (bounded) for the exit. */
export async function stopCli(p: CliProcess, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 10_000): Promise<Exit> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return p.exited;
  p.child.kill(signal);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  try {
    return await p.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** A fresh temporary directory; remove it with `removeTempDir`. */
export function makeTempDir(prefix = 'embedded-mongo-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export function removeTempDir(dir: string | undefined): Promise<void> {
  return dir ? rm(dir, { recursive: true, force: true }) : Promise.resolve();
}

/** Polls `check` until it returns true (or throws once `timeoutMs` has passed). */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000, everyMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
