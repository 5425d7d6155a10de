/**
 * `npm start` as a script sees it: .local/demo-project.json is the ready signal (a backend call made
 * the moment it appears is served), and a Ctrl-C to the whole process group stops the embedded
 * store last, after every service has drained and written what it held, so no event is lost.
 *
 * Runs the real launcher (deploy/local/start.ts) in a temporary directory (its .local and .data),
 * on npm start's fixed ports: in the stack tier (vitest.config.ts), in its own network namespace
 * when other stacks may run (`unshare -n`, docs/development.md).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { backendClientInformation } from '../../../test/kit/startStack.js';
import { DEFAULT_DEMO_PORT, DEFAULT_PORTS } from '../processes.js';

const START = fileURLToPath(new URL('../start.ts', import.meta.url));
const backend = `http://127.0.0.1:${DEFAULT_PORTS.backend}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The process name of a supervisor line (`<color>name     <reset>| text`), without colors. */
const nameOf = (line: string) => stripVTControlCharacters(line.split('|')[0]).trim();

describe('npm start (deploy/local/start.ts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'passkeyauth-start-'));
  const readyFile = join(dir, '.local', 'demo-project.json');
  const lines: string[] = [];
  let launcher: ChildProcess | undefined;
  let exited: Promise<number | null> | undefined;

  afterAll(async () => {
    if (launcher && launcher.exitCode === null && launcher.signalCode === null) {
      process.kill(-launcher.pid!, 'SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the ready file only when the stack serves, and stops the store last on a Ctrl-C to the group', async () => {
    // A file left by a run that was killed: it must not read as "ready".
    mkdirSync(join(dir, '.local'));
    writeFileSync(readyFile, JSON.stringify({ projectID: 'pro-1234567890123456789', apiSecret: 'corbado1_stale' }));

    // Its own process group (detached), as a terminal gives `npm start`: the group a Ctrl-C reaches.
    launcher = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), START], {
      cwd: dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A short drain keeps the test short; the services still serve during it.
      env: { ...process.env, SHUTDOWN_DRAIN_MS: '500' },
    });
    for (const stream of [launcher.stdout!, launcher.stderr!]) createInterface({ input: stream }).on('line', (l) => lines.push(l));
    exited = new Promise((resolve) => launcher!.once('exit', (code) => resolve(code)));
    const failed = () => launcher!.exitCode !== null && new Error(`the launcher exited:\n${lines.join('\n')}`);

    await expect.poll(() => existsSync(readyFile), { timeout: 10_000, interval: 5 }).toBe(false);
    for (const deadline = Date.now() + 90_000; !existsSync(readyFile); await sleep(5)) {
      if (failed()) throw failed();
      if (Date.now() > deadline) throw new Error(`no ready file after 90 s:\n${lines.join('\n')}`);
    }

    // (a) At once, no retry: whole (written under another name, then renamed) and served.
    const project = JSON.parse(readFileSync(readyFile, 'utf8')) as { projectID: string; apiSecret: string; connect: { projectID: string } };
    const auth = `Basic ${Buffer.from(`${project.projectID}:${project.apiSecret}`).toString('base64')}`;
    const created = await fetch(`${backend}/v2/users`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ fullName: 'Ada', status: 'active' }) });
    expect(created.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${DEFAULT_DEMO_PORT}/healthz`)).status).toBe(200);
    expect(project.projectID).not.toBe('pro-1234567890123456789');
    expect(project.connect.projectID).toMatch(/^pro-/);

    // (b) Calls that record a ceremony event each, running while the stack is told to stop: the
    // services keep serving while they drain, so events are queued until the end.
    let sigintAt = Infinity;
    const servedAfterSigint: number[] = [];
    let refused = false;
    const caller = async () => {
      while (!refused) {
        const sent = Date.now();
        try {
          const res = await fetch(`${backend}/v2/passkey/mediation/start`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ clientInformation: backendClientInformation }) });
          if (res.status === 200 && sent > sigintAt) servedAfterSigint.push(sent);
          await res.arrayBuffer();
        } catch {
          refused = true;
        }
      }
    };
    const callers = Array.from({ length: 3 }, caller);
    await sleep(300);
    const stoppingFrom = lines.length;
    sigintAt = Date.now();
    // What Ctrl-C in the terminal does: SIGINT to every process of the group at once.
    process.kill(-launcher.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    refused = true;
    await Promise.all(callers);

    const log = lines.slice(stoppingFrom);
    expect(lines.filter((l) => /events lost|refused them|unreachable during shutdown/.test(l))).toEqual([]);
    const stopped = log.filter((l) => / stopped \(/.test(l)).map(nameOf);
    expect(stopped.at(-1)).toBe('mongo');
    expect(new Set(stopped)).toEqual(new Set(['mongo', 'mail', 'connect', 'challenge', 'ceremony', 'events', 'gateway', 'demo', 'tls-front']));
    // The store did not take the group's SIGINT itself (it would have exited before being stopped).
    expect(log.filter((l) => nameOf(l) === 'mongo' && /exited/.test(l))).toEqual([]);
    // The ceremony service closed its event writer (flushed) before the store went.
    const ceremonyClosed = log.findIndex((l) => nameOf(l) === 'ceremony' && /"msg":"stopped"/.test(l));
    expect(ceremonyClosed).toBeGreaterThanOrEqual(0);
    expect(ceremonyClosed).toBeLessThan(log.findIndex((l) => nameOf(l) === 'mongo' && / stopped \(/.test(l)));
    // Calls were served (each recording an event) after the Ctrl-C, so the flush above had work.
    expect(servedAfterSigint.length, 'no ceremony event was recorded during the drain').toBeGreaterThan(0);
    // A stopped stack has no ready file.
    expect(existsSync(readyFile)).toBe(false);
  }, 150_000);
});
