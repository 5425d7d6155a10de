/**
 * Fuzz every route of both listeners, as the served OpenAPI documents list them, with generated
 * malformed input: each body property replaced by every wrong JSON type, huge, deep and wide
 * values, missing fields, invalid JSON and encodings, wrong content types, and garbage path and
 * query parameters. Every answer must be a 2xx or a 4xx whose body is the errorRsp shape; never a
 * 5xx, and no process of the stack may crash or restart.
 *
 * Bounded: about 1,500 requests, 8 at a time, against a stack of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProjectAdmin } from '../../services/connect/src/cli/projectAdmin.js';
import { startSession } from '../../services/connect/src/sessions/domain/startSession.js';
import { mongoSessionStore } from '../../services/connect/src/sessions/store/sessions.js';
import { mongoIdentifierStore } from '../../services/connect/src/users/store/identifiers.js';
import { mongoUserStore } from '../../services/connect/src/users/store/users.js';
import { createLogger } from '../../services/runtime/logger.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

type Listener = 'frontend' | 'backend';
interface Operation {
  listener: Listener;
  method: string;
  template: string;
  requestSchema: Schema | null;
  queryNames: string[];
  /** The documented pattern of each path parameter (e.g. `^ses-[0-9]{1,30}$`), to build IDs it accepts. */
  pathPatterns: Record<string, string | undefined>;
}
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  $ref?: string;
}
interface Probe {
  operation: Operation;
  name: string;
  path: string;
  body?: string | Buffer;
  contentType?: string;
  /** A token for Authorization: Bearer (frontend), in place of the process token. */
  bearer?: string;
  /** The path's parameters are well-formed IDs (not the garbage probes), so the answer must not refuse them. */
  wellFormedPath?: boolean;
}
interface Outcome {
  probe: Probe;
  status: number;
  text: string;
}

const ORIGIN = 'http://localhost:3000';
const ISSUE_31_ROUTES = [
  'PATCH /v2/users/{userID}',
  'POST /v2/users/{userID}/longSessions',
  'GET /v2/users/{userID}/longSessions/{longSessionID}',
  'PATCH /v2/users/{userID}/longSessions/{longSessionID}',
  'POST /v2/users/{userID}/longSessions/{longSessionID}/shortSessions',
  'GET /v2/longSessions/{longSessionID}',
  'POST /v2/users/{userID}/authEvents',
  'POST /v2/users/{userID}/passkeyEvents',
  'GET /v2/users/{userID}/passkeyEvents',
  'DELETE /v2/users/{userID}/passkeyEvents/{passkeyEventID}',
  'GET /v2/users/{userID}/passkeyChallenges',
  'PATCH /v2/users/{userID}/passkeyChallenges/{passkeyChallengeID}',
  'GET /v2/users/{userID}/socialAccounts',
  'POST /v2/users/{userID}/socialAccounts',
  'GET /v2/socialAccounts',
  'PUT /v2/projectConfig/cname',
  'POST /v2/webhookEndpoints',
  'GET /v2/webhookEndpoints',
  'DELETE /v2/webhookEndpoints/{webhookEndpointID}',
];
const CONCURRENCY = 8;

let stack: Stack;
let project: ProjectJson;
let userID: string;
let processToken: string;
const operations: Operation[] = [];
const docs = {} as Record<Listener, { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, Schema> } }>;

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('fuzz', [ORIGIN], ['--self-service', 'enabled']);
  const user = await fetch(`${stack.backendUrl}/v2/users`, { method: 'POST', headers: backendHeaders(), body: JSON.stringify({ fullName: 'Fuzz', status: 'active' }) });
  userID = ((await user.json()) as { userID: string }).userID;
  // A real process token, so process-token routes get past authentication into their input checks.
  const init = await fetch(`${stack.frontendUrl}/v2/connect/login/init`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-corbado-projectid': project.projectID, origin: ORIGIN },
    body: JSON.stringify({ clientInformation: { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true }, flags: {} }),
  });
  const initBody = (await init.json()) as { token?: string };
  processToken = initBody.token ?? '';
  for (const listener of ['frontend', 'backend'] as const) {
    const base = listener === 'frontend' ? stack.frontendUrl : stack.backendUrl;
    docs[listener] = (await (await fetch(`${base}/openapi.json`)).json()) as (typeof docs)[Listener];
    for (const [template, item] of Object.entries(docs[listener].paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const o = op as { requestBody?: { content?: Record<string, { schema?: Schema }> }; parameters?: { name: string; in: string; schema?: { pattern?: string } }[] };
        operations.push({
          listener,
          method: method.toUpperCase(),
          template,
          requestSchema: o.requestBody?.content?.['application/json']?.schema ?? null,
          queryNames: (o.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
          pathPatterns: Object.fromEntries((o.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, p.schema?.pattern])),
        });
      }
    }
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

function backendHeaders(): Record<string, string> {
  return { authorization: basic(project), 'content-type': 'application/json' };
}

function resolve(listener: Listener, schema: Schema | undefined): Schema | undefined {
  if (!schema?.$ref) return schema;
  return docs[listener].components.schemas[schema.$ref.split('/').pop()!];
}

/**
 * A concrete path: the real user where the route names one, and elsewhere an ID of the documented
 * shape (`^ses-[0-9]{1,30}$` → `ses-1`), so the probes get past the path parameters' checks into
 * the body's and the service's (an ID guessed from the parameter's name, `lon-1` for a
 * longSessionID, stopped every probe of such a route at the path).
 */
function concretePath(operation: Operation): string {
  return operation.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name === 'userID') return userID;
    const prefix = /^\^([a-z]+)-\[0-9\]/.exec(operation.pathPatterns[name] ?? '')?.[1];
    if (!prefix) throw new Error(`${operation.method} ${operation.template}: no ID shape documented for {${name}}; teach concretePath one`);
    return `${prefix}-1`;
  });
}

let deep = '0';
for (let i = 0; i < 5000; i++) deep = `[${deep}]`;
const WRONG_VALUES: [string, string][] = [
  ['null', 'null'],
  ['number', '12345'],
  ['negative float', '-1.5e300'],
  ['string', '"x"'],
  ['boolean', 'true'],
  ['array', '[1,"a",{}]'],
  ['object', '{"a":{"b":1}}'],
  ['long string', JSON.stringify('x'.repeat(60_000))],
  ['unicode string', JSON.stringify('\u0000\ud83d\ude00\u202e<script>')],
  ['deep array', deep],
  ['wide array', `[${new Array(20_000).fill(0).join(',')}]`],
];

function probesOf(operation: Operation): Probe[] {
  const path = concretePath(operation);
  const probes: Probe[] = [];
  const add = (name: string, p: Omit<Probe, 'operation' | 'name'>) => probes.push({ operation, name, wellFormedPath: p.path.split('?')[0] === path, ...p });
  // Path parameters: garbage, huge, traversal.
  if (operation.template.includes('{')) {
    for (const garbage of ['%00', 'usr-' + '9'.repeat(400), '..%2F..%2Fetc', '%F0%9F%98%80', 'usr-1;drop']) {
      add(`path ${garbage.slice(0, 12)}`, { path: operation.template.replace(/\{[^}]+\}/g, garbage), body: operation.method === 'GET' || operation.method === 'DELETE' ? undefined : '{}' });
    }
  }
  if (operation.method === 'GET' || operation.method === 'DELETE') {
    for (const q of operation.queryNames) {
      for (const v of ['%00', 'x'.repeat(5000), '-1', '1e999', 'true', '[]']) add(`query ${q}=${v.slice(0, 8)}`, { path: `${path}?${encodeURIComponent(q)}=${v}` });
    }
    return probes;
  }
  add('invalid JSON', { path, body: '{"a":' });
  add('JSON array', { path, body: '[1,2]' });
  add('JSON scalar', { path, body: '7' });
  add('invalid UTF-8', { path, body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]) });
  add('wrong content type', { path, body: 'a=b', contentType: 'application/x-www-form-urlencoded' });
  add('empty object', { path, body: '{}' });
  add('over the body limit', { path, body: JSON.stringify({ a: 'x'.repeat(300 * 1024) }) });
  const schema = resolve(operation.listener, operation.requestSchema ?? undefined);
  for (const property of Object.keys(schema?.properties ?? {})) {
    for (const [label, value] of WRONG_VALUES) add(`${property} as ${label}`, { path, body: `{"${property}":${value}}` });
  }
  return probes;
}

function headersFor(probe: Probe): Record<string, string> {
  const h: Record<string, string> =
    probe.operation.listener === 'backend'
      ? backendHeaders()
      : { 'content-type': 'application/json', 'x-corbado-projectid': project.projectID, 'x-corbado-process-id': processToken, origin: ORIGIN };
  if (probe.contentType) h['content-type'] = probe.contentType;
  if (probe.bearer) h.authorization = `Bearer ${probe.bearer}`;
  return h;
}

async function send(probe: Probe): Promise<Outcome> {
  const base = probe.operation.listener === 'frontend' ? stack.frontendUrl : stack.backendUrl;
  const res = await fetch(`${base}${probe.path}`, { method: probe.operation.method, headers: headersFor(probe), body: probe.body as BodyInit | undefined });
  return { probe, status: res.status, text: await res.text() };
}

async function runAll(probes: Probe[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < probes.length) outcomes.push(await send(probes[next++]));
    }),
  );
  return outcomes;
}

/** What is wrong with an answer, or null: 2xx, or 4xx with an errorRsp body naming its status. */
function problemOf(o: Outcome): string | null {
  if (o.status >= 500) return `${o.status}: ${o.text.slice(0, 300)}`;
  if (o.status < 400) return o.status >= 200 && o.status < 300 ? null : `unexpected status ${o.status}`;
  let body: { httpStatusCode?: unknown; error?: { type?: unknown; validation?: unknown } };
  try {
    body = JSON.parse(o.text) as typeof body;
  } catch {
    return `${o.status} without a JSON body: ${o.text.slice(0, 120)}`;
  }
  if (body.httpStatusCode !== o.status || typeof body.error?.type !== 'string' || !Array.isArray(body.error.validation)) return `${o.status} not an errorRsp: ${o.text.slice(0, 200)}`;
  if (o.probe.wellFormedPath) {
    const refused = (body.error.validation as { field?: string }[]).map((v) => v.field).filter((f) => f !== undefined && f in o.probe.operation.pathPatterns);
    if (refused.length > 0) return `the well-formed path parameter ${refused.join(', ')} was refused, so the probe never reached the body's checks`;
  }
  return null;
}

describe('fuzzing every route of both OpenAPI documents', () => {
  it('answers every malformed request with 2xx or a 4xx errorRsp, never 5xx, and nothing crashes', async () => {
    expect(operations.length).toBeGreaterThan(50);
    // The backend operations of issue #31 and the webhook endpoints are in the served document, so they are fuzzed.
    expect(operations.filter((o) => o.listener === 'backend').map((o) => `${o.method} ${o.template}`)).toEqual(expect.arrayContaining(ISSUE_31_ROUTES));
    const probes = operations.flatMap(probesOf);
    expect(probes.length).toBeGreaterThan(1000);
    const outcomes = await runAll(probes);
    const byStatus = new Map<number, number>();
    for (const o of outcomes) byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);
    console.log(`fuzz: ${operations.length} operations, ${outcomes.length} requests, statuses ${JSON.stringify(Object.fromEntries(byStatus))}`);
    // Most malformed input must reach the input checks, not stop at authentication.
    expect(outcomes.filter((o) => o.status === 400).length).toBeGreaterThan(outcomes.length / 2);
    const problems = outcomes.map((o) => ({ o, problem: problemOf(o) })).filter((x) => x.problem !== null);
    expect(
      problems.slice(0, 20).map(({ o, problem }) => `${o.probe.operation.method} ${o.probe.operation.template} [${o.probe.name}] → ${problem}`),
      `${problems.length} of ${outcomes.length} answers`,
    ).toEqual([]);
    // No process exited (the supervisor reports every exit).
    expect(stack.logs.filter((l) => /exited \(/.test(l))).toEqual([]);
    // And the stack still serves a well-formed request.
    const b1 = await fetch(`${stack.backendUrl}/v2/users/${userID}/challenges`, {
      method: 'POST',
      headers: backendHeaders(),
      body: JSON.stringify({ challengeType: 'email_otp', identifierValue: 'fuzz@example.com', clientInformation: backendClientInformation }),
    });
    expect(b1.status).toBe(200);
  }, 300_000);
});

describe('fuzzing the signed-in user\'s routes with a real session token', () => {
  it('gets past authentication into the input checks: 2xx or a 4xx errorRsp, never 5xx; the session still works', async () => {
    const admin = await openProjectAdmin({
      mongodbUri: stack.env.MONGODB_URI,
      masterKey: parseMasterKey(stack.env.MASTER_KEY),
      urls: { frontendApiUrl: stack.env.FRONTEND_API_URL, backendApiUrl: stack.env.BACKEND_API_URL },
    });
    let session: string;
    try {
      const deps = { ...admin.deps, sessions: mongoSessionStore(stack.db), users: mongoUserStore(stack.db), identifiers: mongoIdentifierStore(stack.db), logger: createLogger('fuzz', 'silent') };
      session = (await startSession(deps, { projectId: project.projectID, userId: userID, withRefreshToken: false })).sessionToken;
    } finally {
      await admin.close();
    }
    // Logout and the account delete would end the session the other probes need; refresh takes a refresh token.
    const ending = new Set(['POST /v2/me/logout', 'POST /v2/me/refresh', 'DELETE /v2/me']);
    const mine = operations.filter((o) => o.listener === 'frontend' && o.template.startsWith('/v2/me') && !ending.has(`${o.method} ${o.template}`));
    expect(mine.map((o) => `${o.method} ${o.template}`)).toEqual(expect.arrayContaining(['PATCH /v2/me', 'POST /v2/me/identifier', 'PATCH /v2/me/identifier', 'DELETE /v2/me/identifier']));
    const outcomes = await runAll(mine.flatMap(probesOf).map((p) => ({ ...p, bearer: session })));
    expect(outcomes.filter((o) => o.status === 401)).toEqual([]);
    const problems = outcomes.map((o) => ({ o, problem: problemOf(o) })).filter((x) => x.problem !== null);
    expect(problems.slice(0, 20).map(({ o, problem }) => `${o.probe.operation.method} ${o.probe.operation.template} [${o.probe.name}] → ${problem}`)).toEqual([]);
    expect(stack.logs.filter((l) => /exited \(/.test(l))).toEqual([]);
    const me = await fetch(`${stack.frontendUrl}/v2/me`, { headers: { authorization: `Bearer ${session}`, 'x-corbado-projectid': project.projectID } });
    expect(me.status).toBe(200);
  }, 120_000);
});
