/**
 * Fault test: each process of the stack (the embedded store too, run as its own process as under
 * `npm start`) is killed with SIGKILL while clients create users and
 * challenges through the backend API. Asserted: every failed request is a retryable 503/504 (or,
 * while the gateway itself is down, a refused connection); nothing acknowledged is lost (every user
 * and challenge answered 200 is there afterwards); the supervisor brings each process back. The time
 * from the kill until the process is ready again is measured and reported
 * (test-artifacts/faults/killUnderLoad.txt), with only a loose bound asserted.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const CLIENTS = 6;
const LOAD_AFTER_KILL_MS = 2500;

let stack: Stack;
let project: ProjectJson;

beforeAll(async () => {
  stack = await startStack({ storeProcess: !process.env.MONGODB_URI });
  project = await stack.createProject('kill-under-load');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

interface Tally {
  users: string[];
  challenges: { userID: string; challengeID: string }[];
  failures: Map<string, number>;
  /** The first answer of each kind of failure, for the assertion message. */
  firstBodies: Map<string, string>;
}

async function backend(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> } | 'refused'> {
  try {
    const res = await fetch(`${stack.backendUrl}${path}`, {
      method,
      headers: { authorization: basic(project), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  } catch {
    // The gateway itself is down: the connection is refused or reset, which a client retries.
    return 'refused';
  }
}

/** One client's loop: create a user, then a challenge for it, until `until`. */
async function client(n: number, until: number, tally: Tally): Promise<void> {
  let i = 0;
  while (Date.now() < until) {
    i += 1;
    const created = await backend('POST', '/v2/users', { fullName: `Client ${n}-${i}`, status: 'active' });
    if (created === 'refused' || created.status !== 200) {
      count(tally, created);
      continue;
    }
    const userID = created.body.userID as string;
    tally.users.push(userID);
    const challenge = await backend('POST', `/v2/users/${userID}/challenges`, {
      challengeType: 'email_otp',
      identifierValue: `c${n}-${i}@example.com`,
      clientInformation: { ...backendClientInformation, remoteAddress: `2001:db8::${n}:${i}` },
    });
    if (challenge === 'refused' || challenge.status !== 200) count(tally, challenge);
    else tally.challenges.push({ userID, challengeID: challenge.body.challengeID as string });
  }
}

function count(tally: Tally, r: { status: number; body: Record<string, any> } | 'refused'): void {
  const key = r === 'refused' ? 'refused' : `${r.status} ${r.body.error?.type ?? ''}`;
  if (!tally.firstBodies.has(key)) tally.firstBodies.set(key, r === 'refused' ? '' : JSON.stringify(r.body).slice(0, 400));
  tally.failures.set(key, (tally.failures.get(key) ?? 0) + 1);
}

/** Until the process answers again: /readyz for the services and the gateway, a ping for the store. */
async function readyAgain(name: string, port: number, killedAt: number): Promise<number> {
  for (;;) {
    try {
      if (name === 'mongo') {
        await stack.db.command({ ping: 1 }, { timeoutMS: 500 });
        return Date.now() - killedAt;
      }
      if ((await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(500) })).status === 200) return Date.now() - killedAt;
    } catch {
      // Not up yet.
    }
    if (Date.now() - killedAt > 30_000) throw new Error(`${name} not ready 30 s after the kill`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('killing each process under load', () => {
  it('loses no acknowledged write, answers only retryable failures, and every process comes back', async () => {
    const report: string[] = [`kill -9 under load, ${new Date().toISOString()}, ${CLIENTS} clients`];
    const targets: [string, number][] = [
      ['connect', stack.ports.connect],
      ['challenge', stack.ports.challenge],
      ['ceremony', stack.ports.ceremony],
      ['gateway', stack.ports.frontend],
    ];
    // The store's acknowledged writes must survive its own crash (journal, fsynced before the answer).
    if (!process.env.MONGODB_URI) targets.push(['mongo', 0]);
    for (const [name, port] of targets) {
      const tally: Tally = { users: [], challenges: [], failures: new Map(), firstBodies: new Map() };
      const until = Date.now() + 1000 + LOAD_AFTER_KILL_MS;
      const load = Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n, until, tally)));
      await new Promise((r) => setTimeout(r, 1000));
      const pid = stack.supervisor.pidOf(name);
      expect(pid, `${name} runs`).toBeDefined();
      const killedAt = Date.now();
      process.kill(pid!, 'SIGKILL');
      const recovery = await readyAgain(name, port, killedAt);
      await load;

      // Every failure is one a client retries: 503/504 with errorRsp, or a refused connection.
      for (const key of tally.failures.keys()) expect(['503', '504', 'refused'], `${name}: failure "${key}": ${tally.firstBodies.get(key)}`).toContain(key.split(' ')[0]);
      // Nothing acknowledged is lost.
      for (const userID of tally.users) {
        const got = await backend('GET', `/v2/users/${userID}`);
        expect(got !== 'refused' && got.status, `${name}: acknowledged user ${userID}`).toBe(200);
      }
      for (const { userID, challengeID } of tally.challenges) {
        const got = await backend('GET', `/v2/users/${userID}/challenges/${challengeID}`);
        expect(got !== 'refused' && got.status, `${name}: acknowledged challenge ${challengeID}`).toBe(200);
      }
      report.push(
        `${name}: ready again ${recovery} ms after kill -9; ${tally.users.length} users and ${tally.challenges.length} challenges acknowledged and found; failures ${JSON.stringify(Object.fromEntries(tally.failures))}`,
      );
      // Loose guard only: the figure itself is the report.
      expect(recovery, `${name} recovery`).toBeLessThan(15_000);
    }
    mkdirSync('test-artifacts/faults', { recursive: true });
    writeFileSync('test-artifacts/faults/killUnderLoad.txt', `${report.join('\n')}\n`);
    console.log(report.join('\n'));
  }, 240_000);
});
