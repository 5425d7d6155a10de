/**
 * Scale-out: all state lives in MongoDB, so any replica can serve any step. Two replicas of every
 * process (a and b, from deploy/local/processes.ts) share one store. Each gateway talks to the
 * services of its own replica, and each service talks to the *other* replica's services, so a
 * ceremony started through gateway a and finished through gateway b has its two steps served by
 * different ceremony, connect and challenge processes. The replicas' /metrics show which one
 * served which step.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedMongo, type EmbeddedMongo } from '@passkeyauth/embedded-mongo';
import { stackProcesses, type StackPorts } from '../../deploy/local/processes.js';
import type { ProcessSpec } from '../../deploy/local/supervisor.js';
import { Supervisor } from '../../deploy/local/supervisor.js';
import { SoftAuthenticator, type SoftCredential } from '../kit/softAuthenticator.js';
import { backendClientInformation, basic, freePort, type ProjectJson } from '../kit/startStack.js';

const run = promisify(execFile);
const ORIGIN = 'http://localhost:3000';
type Replica = 'a' | 'b';
type Rsp = { status: number; body: Record<string, any>; headers: Headers };

let embedded: EmbeddedMongo | undefined;
let supervisor: Supervisor | undefined;
const logs: string[] = [];
const ports = {} as Record<Replica, StackPorts>;
let env: Record<string, string>;
let project: ProjectJson;

const urlsOf = (p: StackPorts) => ({
  CEREMONY_URL: `http://127.0.0.1:${p.ceremony}`,
  CHALLENGE_URL: `http://127.0.0.1:${p.challenge}`,
  CONNECT_URL: `http://127.0.0.1:${p.connect}`,
});

/** One replica of the stack: its gateway in front of its own services; its services call the other replica's. */
function replica(name: Replica, peer: Replica, mongodbUri: string, masterKey: string, internalAuthKeys: string): ProcessSpec[] {
  return stackProcesses({
    mongodbUri,
    masterKey,
    // One Secret for all replicas, as in Kubernetes: any replica's caller token is good at any other.
    internalAuthKeys,
    ports: ports[name],
    frontendApiUrl: env.FRONTEND_API_URL,
    backendApiUrl: env.BACKEND_API_URL,
    logLevel: 'warn',
  }).map((spec) => ({
    ...spec,
    name: `${spec.name}-${name}`,
    env: spec.name === 'gateway' ? spec.env : { ...spec.env, ...urlsOf(ports[peer]) },
  }));
}

async function call(via: Replica, path: string, init: { method?: string; body?: unknown } = {}): Promise<Rsp> {
  const res = await fetch(`http://127.0.0.1:${ports[via].backend}${path}`, {
    method: init.method ?? 'POST',
    headers: { authorization: basic(project), 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
}

function ok(r: Rsp): Record<string, any> {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

async function createUser(via: Replica): Promise<string> {
  return ok(await call(via, '/v2/users', { body: { fullName: 'Ada Lovelace', status: 'active' } })).userID as string;
}

/** Sum of a counter or histogram _count over the series whose labels include `labels`, on one process. */
async function sample(port: number, metric: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== metric) continue;
    const have = Object.fromEntries([...m[2].matchAll(/([a-zA-Z_]+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) total += Number(m[3]);
  }
  return total;
}

const rpcCount = (replicaName: Replica, method: string) =>
  sample(ports[replicaName].ceremony, 'rpc_server_duration_seconds_count', { method: `passkeyauth.ceremony.v1.CeremonyService/${method}`, code: 'ok' });

beforeAll(async () => {
  embedded = await startEmbeddedMongo({ port: 0 });
  const uri = new URL(embedded.uri);
  uri.pathname = `/scaleout_${randomBytes(4).toString('hex')}`;
  for (const r of ['a', 'b'] as const) {
    ports[r] = { ceremony: await freePort(), challenge: await freePort(), connect: await freePort(), events: await freePort(), frontend: await freePort(), backend: await freePort() };
  }
  const masterKey = randomBytes(32).toString('hex');
  env = {
    MONGODB_URI: uri.toString(),
    MASTER_KEY: masterKey,
    FRONTEND_API_URL: `http://127.0.0.1:${ports.a.frontend}`,
    BACKEND_API_URL: `http://127.0.0.1:${ports.a.backend}`,
  };
  supervisor = new Supervisor((line) => logs.push(line));
  const internalAuthKeys = randomBytes(32).toString('hex');
  const specs = [...replica('a', 'b', env.MONGODB_URI, masterKey, internalAuthKeys), ...replica('b', 'a', env.MONGODB_URI, masterKey, internalAuthKeys)];
  try {
    await Promise.all(specs.map((spec) => supervisor!.start(spec, 90_000)));
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${logs.join('\n')}`, { cause: err });
  }
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'services/connect/src/cli/project.ts', 'create', '--name', 'scale-out', '--rp-id', 'localhost', '--origin', ORIGIN],
    { env: { ...process.env, ...env } },
  );
  project = JSON.parse(stdout) as ProjectJson;
}, 180_000);

afterAll(async () => {
  await supervisor?.stop();
  await embedded?.stop();
}, 60_000);

/** B2 through one gateway, the authenticator, B3 through another. */
async function register(userID: string, start: Replica, finish: Replica) {
  const auth = new SoftAuthenticator({ flags: { be: true } });
  const options = ok(
    await call(start, '/v2/passkey/append/start', {
      body: { userID, processID: 'proc-append', username: 'ada@example.com', clientInformation: backendClientInformation, passkeyIntelFlags: {}, situation: 'default' },
    }),
  );
  const { json, credential } = auth.createFromOptions(options.attestationOptions, ORIGIN);
  const finished = await call(finish, '/v2/passkey/append/finish', {
    body: { userID, processID: 'proc-append', attestationResponse: JSON.stringify(json), trackingID: 'trk-append', clientInformation: backendClientInformation },
  });
  return { auth, credential, finished };
}

async function login(userID: string, auth: SoftAuthenticator, credential: SoftCredential, start: Replica, finish: Replica) {
  const options = ok(
    await call(start, '/v2/passkey/login/start', {
      body: { userID, processID: 'proc-login', clientInformation: backendClientInformation, crossDeviceAuthenticationStrategy: 'standard' },
    }),
  );
  const assertion = auth.getFromOptions(options.assertionOptions, credential, ORIGIN);
  return call(finish, '/v2/passkey/login/finish', {
    body: { userID, processID: 'proc-login', assertionResponse: JSON.stringify(assertion), trackingID: 'trk-login', clientInformation: backendClientInformation, signPasskeyData: true },
  });
}

async function mediate(auth: SoftAuthenticator, credential: SoftCredential, start: Replica, finish: Replica) {
  const options = ok(await call(start, '/v2/passkey/mediation/start', { body: { processID: 'proc-mediation', clientInformation: backendClientInformation } }));
  const assertion = auth.getFromOptions(options.assertionOptions, credential, ORIGIN);
  return call(finish, '/v2/passkey/mediation/finish', {
    body: { assertionResponse: JSON.stringify(assertion), clientInformation: backendClientInformation, processID: 'proc-mediation', trackingID: 'trk-mediation' },
  });
}

describe('passkey ceremonies across replicas', () => {
  it('B2 on a → B3 on b, B4 on b → B5 on a, B6 on a → B7 on b (and the other way round); each step served by the replica it was sent to', async () => {
    const before = { startA: await rpcCount('a', 'StartAppend'), finishB: await rpcCount('b', 'FinishAppend'), finishA: await rpcCount('a', 'FinishAppend') };

    const userID = await createUser('a');
    const { auth, credential, finished } = await register(userID, 'a', 'b');
    const passkeyData = ok(finished).passkeyData;
    expect(passkeyData).toMatchObject({ userID, username: 'ada@example.com', id: expect.stringMatching(/^cre-/) });

    expect(await rpcCount('a', 'StartAppend')).toBe(before.startA + 1);
    expect(await rpcCount('b', 'FinishAppend')).toBe(before.finishB + 1);
    expect(await rpcCount('a', 'FinishAppend')).toBe(before.finishA);

    for (const [start, finish] of [['b', 'a'], ['a', 'b']] as const) {
      const loggedIn = ok(await login(userID, auth, credential, start, finish));
      expect(loggedIn.passkeyData).toMatchObject({ userID, id: passkeyData.id });
      expect(loggedIn.signedPasskeyData).toEqual(expect.any(String));
      const mediated = ok(await mediate(auth, credential, finish, start));
      expect(mediated.passkeyData).toMatchObject({ userID, id: passkeyData.id });
    }

    // B5 signed passkeyData through the other replica's connect service: ceremony a → connect b, ceremony b → connect a.
    for (const r of ['a', 'b'] as const) {
      expect(await sample(ports[r].connect, 'rpc_server_duration_seconds_count', { method: 'passkeyauth.connect.v1.ProjectService/SignPasskeyData', code: 'ok' }), r).toBe(1);
    }

    // The passkey is visible from both replicas.
    for (const via of ['a', 'b'] as const) {
      const listed = ok(await call(via, `/v2/users/${userID}/credentials`, { method: 'GET' }));
      expect(listed.credentials.map((c: { id: string }) => c.id)).toEqual([passkeyData.id]);
    }
  });

  it('a session is single-use across replicas: a B3 replayed through the other gateway is refused', async () => {
    const userID = await createUser('b');
    const auth = new SoftAuthenticator();
    const options = ok(
      await call('b', '/v2/passkey/append/start', {
        body: { userID, processID: 'proc-append', username: 'ada@example.com', clientInformation: backendClientInformation, passkeyIntelFlags: {}, situation: 'default' },
      }),
    );
    const { json } = auth.createFromOptions(options.attestationOptions, ORIGIN);
    const body = { userID, processID: 'proc-append', attestationResponse: JSON.stringify(json), trackingID: 'trk-append', clientInformation: backendClientInformation };
    const results = await Promise.all([call('a', '/v2/passkey/append/finish', { body }), call('b', '/v2/passkey/append/finish', { body })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.status === 409)!.body.error.type).toBe('challenge_not_found_or_used');
    const replay = await call('a', '/v2/passkey/append/finish', { body });
    expect(replay.status).toBe(409);
  });

  it('counts ceremony outcomes on the replica that finished them', async () => {
    const total = async (operation: string) =>
      (await sample(ports.a.ceremony, 'ceremony_outcomes_total', { operation, outcome: 'success' })) +
      (await sample(ports.b.ceremony, 'ceremony_outcomes_total', { operation, outcome: 'success' }));
    expect(await total('append')).toBeGreaterThanOrEqual(2);
    expect(await total('login')).toBeGreaterThanOrEqual(2);
    expect(await total('mediation')).toBeGreaterThanOrEqual(2);
    expect(await sample(ports.b.ceremony, 'ceremony_outcomes_total', { operation: 'append', outcome: 'success' })).toBeGreaterThanOrEqual(1);
    expect(await sample(ports.a.ceremony, 'ceremony_outcomes_total', { operation: 'login', outcome: 'success' })).toBeGreaterThanOrEqual(1);
  });
});

describe('challenges across replicas', () => {
  const wrong = (value: string) => String((Number(value) + 1) % 1_000_000).padStart(6, '0');
  const create = (via: Replica, userID: string, identifierValue: string) =>
    call(via, `/v2/users/${userID}/challenges`, { body: { challengeType: 'email_otp', identifierValue, clientInformation: backendClientInformation } });

  it('B1 on a → PATCH on b completes it; GET on a shows it completed; a second PATCH on a is 409', async () => {
    const userID = await createUser('a');
    const c = ok(await create('a', userID, 'scale-1@example.com'));
    const path = `/v2/users/${userID}/challenges/${c.challengeID}`;
    expect(ok(await call('b', path, { method: 'PATCH', body: { value: c.value } })).status).toBe('completed');
    expect(ok(await call('a', path, { method: 'GET' })).status).toBe('completed');
    const again = await call('a', path, { method: 'PATCH', body: { value: c.value } });
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe('challenge_already_completed');
  });

  it('wrong values spread over both gateways lock the challenge after five', async () => {
    const userID = await createUser('b');
    const c = ok(await create('b', userID, 'scale-2@example.com'));
    const path = `/v2/users/${userID}/challenges/${c.challengeID}`;
    const order: Replica[] = ['a', 'b', 'a', 'b'];
    for (const [i, via] of order.entries()) {
      const r = await call(via, path, { method: 'PATCH', body: { value: wrong(c.value) } });
      expect(r.status, via).toBe(400);
      expect(r.body.error.details).toContain(`${4 - i} attempt(s) left`);
    }
    const locked = await call('a', path, { method: 'PATCH', body: { value: wrong(c.value) } });
    expect(locked.status).toBe(410);
    expect(locked.body.error.type).toBe('challenge_expired');
    const right = await call('b', path, { method: 'PATCH', body: { value: c.value } });
    expect(right.status).toBe(410);
    expect(ok(await call('b', path, { method: 'GET' })).status).toBe('expired');
  });

  it('the per-user creation limit counts creations through both gateways together', async () => {
    const userID = await createUser('a');
    for (let i = 0; i < 5; i++) ok(await create(i % 2 === 0 ? 'a' : 'b', userID, `scale-limit-${i}@example.com`));
    for (const via of ['a', 'b'] as const) {
      const limited = await create(via, userID, `scale-limit-${via}@example.com`);
      expect(limited.status, via).toBe(429);
      expect(limited.body.error.type).toBe('rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});
