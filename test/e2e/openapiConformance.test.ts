/**
 * The served API reference against reality: real calls through the real stack (users,
 * identifiers, challenges B1 + PATCH + GET, B2/B4/B6 starts, credentials, webhook endpoints, the frontend's JWKS and
 * session config, the user-details config and the signed-in user's details and identifiers, and
 * error answers), each JSON answer validated with ajv (JSON Schema 2020-12, as
 * OpenAPI 3.1 uses) against the schema /openapi.json of its listener documents for that path,
 * method and status. Objects are checked closed: an answer may not carry undocumented fields.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonSchema, OpenApiDocument, OpenApiResponse } from '../../gateway/src/openapi/jsonSchema.js';
import { openProjectAdmin } from '../../services/connect/src/cli/projectAdmin.js';
import { startSession } from '../../services/connect/src/sessions/domain/startSession.js';
import { mongoSessionStore } from '../../services/connect/src/sessions/store/sessions.js';
import { mongoIdentifierStore } from '../../services/connect/src/users/store/identifiers.js';
import { mongoUserStore } from '../../services/connect/src/users/store/users.js';
import { createLogger } from '../../services/runtime/logger.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

type Listener = 'frontend' | 'backend';


interface Recorded {
  listener: Listener;
  method: string;
  /** The documented path template, or the concrete path for calls that no route serves. */
  template: string;
  path: string;
  status: number;
  body: unknown;
}

let stack: Stack;
let project: ProjectJson;
const docs = {} as Record<Listener, OpenApiDocument>;
const recorded: Recorded[] = [];
let ajv: Ajv2020;

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('openapi-e2e', undefined, ['--self-service', 'enabled']);
  for (const listener of ['frontend', 'backend'] as const) {
    const res = await fetch(`${baseUrl(listener)}/openapi.json`);
    expect(res.status).toBe(200);
    docs[listener] = (await res.json()) as OpenApiDocument;
  }
  ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    // OpenAPI's discriminator (a block's data, by its blockType): ajv checks it, with each member's const or enum.
    discriminator: true,
    formats: {
      int32: { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 },
      int64: { type: 'number', validate: (n: number) => Number.isSafeInteger(n) },
      float: true,
      double: true,
      'date-time': true,
      email: true,
      hostname: true,
      ipv4: true,
      ipv6: true,
      uri: true,
      'uri-reference': true,
      uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
    },
  });
  for (const listener of ['frontend', 'backend'] as const) {
    ajv.addSchema({ $id: schemaBase(listener), $defs: closed(rebased(docs[listener].components.schemas, listener)) });
  }
}, 120_000);
afterAll(async () => stack?.stop());

const baseUrl = (listener: Listener) => (listener === 'frontend' ? stack.frontendUrl : stack.backendUrl);
const schemaBase = (listener: Listener) => `urn:passkeyauth:openapi:${listener}`;

/** Points `#/components/schemas/X` references at the schema registered for the listener's components. */
function rebased<T>(value: T, listener: Listener): T {
  if (Array.isArray(value)) return value.map((v: unknown) => rebased(v, listener)) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', `${schemaBase(listener)}#/$defs/`) : rebased(v, listener);
  }
  return out as T;
}

/** Closes every object schema that lists properties: an answer may only carry documented fields. */
function closed<T>(value: T): T {
  if (Array.isArray(value)) return value.map(closed) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = k === 'properties' || k === '$defs' ? Object.fromEntries(Object.entries(v as object).map(([name, s]) => [name, closed(s)])) : closed(v);
  if ('properties' in out && !('additionalProperties' in out)) out.additionalProperties = false;
  return out as T;
}

function deref<T>(doc: OpenApiDocument, value: T | { $ref: string }): T {
  let v: unknown = value;
  while (v && typeof v === 'object' && '$ref' in v) {
    const ref = (v as { $ref: string }).$ref;
    v = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], doc);
  }
  return v as T;
}

/**
 * The documented answer for a call: the operation's response for the status, or its default. A
 * path no route serves (404) or a method the path does not take (405) has no operation: those
 * answers are the document's NotFound and MethodNotAllowed responses.
 */
function documentedResponse(r: Recorded): { where: string; response: OpenApiResponse } {
  const doc = docs[r.listener];
  const op = doc.paths[r.template]?.[r.method.toLowerCase()];
  if (!op) {
    const name = r.status === 405 ? 'MethodNotAllowed' : 'NotFound';
    expect([404, 405], `${r.method} ${r.path} is undocumented`).toContain(r.status);
    return { where: `components.responses.${name}`, response: doc.components.responses[name] };
  }
  const key = String(r.status) in op.responses ? String(r.status) : 'default';
  if (r.status === 200) expect(key, `${r.method} ${r.template} documents its 200`).toBe('200');
  return { where: `${r.method} ${r.template} ${key}`, response: deref(doc, op.responses[key]) };
}

const compiled = new Map<string, ValidateFunction>();

function validate(r: Recorded): void {
  const { where, response } = documentedResponse(r);
  const schema = response.content?.['application/json']?.schema as JsonSchema | undefined;
  expect(schema, `${where} has a JSON schema`).toBeDefined();
  const key = `${r.listener} ${where}`;
  let check = compiled.get(key);
  if (!check) {
    check = ajv.compile(closed(rebased(schema!, r.listener)));
    compiled.set(key, check);
  }
  const ok = check(r.body);
  expect(ok ? [] : check.errors, `${r.listener} ${r.method} ${r.path} → ${r.status} against ${where}: ${JSON.stringify(r.body)}`).toEqual([]);
}

interface CallOptions {
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  auth?: string | null;
}

/** Calls the gateway, records the answer and validates it against the document at once. */
async function call(listener: Listener, method: string, template: string, o: CallOptions = {}): Promise<Recorded> {
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(o.params?.[name] ?? ''));
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (listener === 'backend' && o.auth !== null) headers.authorization = o.auth ?? basic(project);
  const body = o.rawBody ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl(listener)}${path}${o.query ?? ''}`, { method, headers, body });
  expect(res.headers.get('content-type')).toBe('application/json');
  const r: Recorded = { listener, method, template, path, status: res.status, body: await res.json() };
  recorded.push(r);
  validate(r);
  return r;
}

const json = (r: Recorded) => r.body as Record<string, any>;

/** A session token for the user, started with the connect service's own domain code (the flows that start one are tested elsewhere). */
async function sessionFor(userId: string): Promise<string> {
  const admin = await openProjectAdmin({
    mongodbUri: stack.env.MONGODB_URI,
    masterKey: parseMasterKey(stack.env.MASTER_KEY),
    urls: { frontendApiUrl: stack.env.FRONTEND_API_URL, backendApiUrl: stack.env.BACKEND_API_URL },
  });
  try {
    const deps = { ...admin.deps, sessions: mongoSessionStore(stack.db), users: mongoUserStore(stack.db), identifiers: mongoIdentifierStore(stack.db), logger: createLogger('openapi-e2e', 'silent') };
    return (await startSession(deps, { projectId: project.projectID, userId, withRefreshToken: false })).sessionToken;
  } finally {
    await admin.close();
  }
}

describe('recorded answers of the backend API match its document', () => {
  let userID: string;

  it('users: create, get', async () => {
    const created = await call('backend', 'POST', '/v2/users', { body: { fullName: 'Ada Lovelace', status: 'active' } });
    expect(created.status).toBe(200);
    userID = json(created).userID;
    expect((await call('backend', 'GET', '/v2/users/{userID}', { params: { userID } })).status).toBe(200);
  });

  it('identifiers: create, update, list with filter[] and paging, duplicate (409), delete (genericRsp)', async () => {
    const created = await call('backend', 'POST', '/v2/users/{userID}/identifiers', {
      params: { userID },
      body: { identifierType: 'email', identifierValue: 'ada@example.com', status: 'pending' },
    });
    expect(created.status).toBe(200);
    const identifierID = json(created).identifierID as string;
    const updated = await call('backend', 'PATCH', '/v2/users/{userID}/identifiers/{identifierID}', { params: { userID, identifierID }, body: { status: 'verified' } });
    expect(updated.status).toBe(200);
    const listed = await call('backend', 'GET', '/v2/identifiers', { query: `?filter[]=${encodeURIComponent('identifierValue:eq:ada@example.com')}&page=1&pageSize=10` });
    expect(listed.status).toBe(200);
    expect(json(listed).identifiers).toHaveLength(1);
    const all = await call('backend', 'GET', '/v2/identifiers', { query: `?filter[]=${encodeURIComponent(`userID:eq:${userID}`)}` });
    expect(all.status).toBe(200);
    const duplicate = await call('backend', 'POST', '/v2/users/{userID}/identifiers', {
      params: { userID },
      body: { identifierType: 'email', identifierValue: 'ada@example.com', status: 'pending' },
    });
    expect(duplicate.status).toBe(409);
    const phone = await call('backend', 'POST', '/v2/users/{userID}/identifiers', { params: { userID }, body: { identifierType: 'phone', identifierValue: '+15551234567', status: 'pending' } });
    const deleted = await call('backend', 'DELETE', '/v2/users/{userID}/identifiers/{identifierID}', { params: { userID, identifierID: json(phone).identifierID } });
    expect(deleted.status).toBe(200);
  });

  it('long sessions: list, get (by user and by ID), revoke, create, short session; user update', async () => {
    const token = await sessionFor(userID);
    const sid = decodeJwt(token).sid as string;
    const listed = await call('backend', 'GET', '/v2/users/{userID}/longSessions', { params: { userID }, query: '?page=1&pageSize=5' });
    expect({ status: listed.status, ids: (json(listed).longSessions as Array<{ longSessionID: string }>).map((l) => l.longSessionID) }).toEqual({ status: 200, ids: [sid] });
    expect((await call('backend', 'GET', '/v2/users/{userID}/longSessions/{longSessionID}', { params: { userID, longSessionID: sid } })).status).toBe(200);
    expect((await call('backend', 'GET', '/v2/longSessions/{longSessionID}', { params: { longSessionID: sid } })).status).toBe(200);
    const revoked = await call('backend', 'PATCH', '/v2/users/{userID}/longSessions/{longSessionID}', { params: { userID, longSessionID: sid }, body: { status: 'revoked' } });
    expect({ status: revoked.status, session: json(revoked).status }).toEqual({ status: 200, session: 'revoked' });
    expect((await call('backend', 'GET', '/v2/longSessions/{longSessionID}', { params: { longSessionID: 'ses-1' } })).status).toBe(404);
    const created = await call('backend', 'POST', '/v2/users/{userID}/longSessions', { params: { userID }, body: { appType: 'web', identifierValue: 'ada@example.com' } });
    expect({ status: created.status, session: json(created).status }).toEqual({ status: 200, session: 'active' });
    const short = await call('backend', 'POST', '/v2/users/{userID}/longSessions/{longSessionID}/shortSessions', {
      params: { userID, longSessionID: json(created).longSessionID },
      body: { appType: 'web', issuer: project.frontendApiUrl },
    });
    expect({ status: short.status, sid: decodeJwt(json(short).value as string).sid }).toEqual({ status: 200, sid: json(created).longSessionID });
    const renamed = await call('backend', 'PATCH', '/v2/users/{userID}', { params: { userID }, body: { fullName: 'Ada King' } });
    expect({ status: renamed.status, fullName: json(renamed).fullName }).toEqual({ status: 200, fullName: 'Ada King' });
  });

  it('social accounts: create, the user\'s list (a bare array), the project\'s list with paging, duplicate (409); auth events; CNAME (genericRsp, 400)', async () => {
    const account = { providerType: 'google', identifierValue: 'ada@example.com', foreignID: '118230', avatarURL: '', fullName: 'Ada' };
    expect((await call('backend', 'POST', '/v2/users/{userID}/socialAccounts', { params: { userID }, body: account })).status).toBe(200);
    const mine = await call('backend', 'GET', '/v2/users/{userID}/socialAccounts', { params: { userID }, query: '?sort=created:desc' });
    expect({ status: mine.status, count: (mine.body as unknown[]).length }).toEqual({ status: 200, count: 1 });
    const listed = await call('backend', 'GET', '/v2/socialAccounts', { query: `?filter[]=${encodeURIComponent('providerType:eq:google')}&page=1&pageSize=10` });
    expect({ status: listed.status, total: json(listed).paging.totalItems }).toEqual({ status: 200, total: 1 });
    expect((await call('backend', 'POST', '/v2/users/{userID}/socialAccounts', { params: { userID }, body: account })).status).toBe(409);
    const event = { username: 'ada@example.com', eventType: 'login', method: 'email_otp', status: 'failure', clientInformation: backendClientInformation };
    expect((await call('backend', 'POST', '/v2/users/{userID}/authEvents', { params: { userID }, body: event })).status).toBe(200);
    expect((await call('backend', 'PUT', '/v2/projectConfig/cname', { body: { cname: 'auth.example.com' } })).status).toBe(200);
    expect((await call('backend', 'PUT', '/v2/projectConfig/cname', { body: { cname: 'https://auth.example.com' } })).status).toBe(400);
  });

  it('challenges: B1 (with its value), PATCH with a wrong and the right value, GET, PATCH again (409)', async () => {
    const b1 = await call('backend', 'POST', '/v2/users/{userID}/challenges', {
      params: { userID },
      body: { challengeType: 'email_otp', identifierValue: 'ada@example.com', clientInformation: backendClientInformation, challengeMetadata: { purpose: 'login' }, lifetimeSeconds: 600 },
    });
    expect(b1.status).toBe(200);
    expect(json(b1)).toHaveProperty('value');
    const challengeID = json(b1).challengeID as string;
    const value = json(b1).value as string;
    const wrong = value === '000000' ? '111111' : '000000';
    const params = { userID, challengeID };
    const missed = await call('backend', 'PATCH', '/v2/users/{userID}/challenges/{challengeID}', { params, body: { value: wrong } });
    expect(missed.status).toBe(400);
    expect(json(missed).error.type).toBe('challenge_value_invalid');
    const verified = await call('backend', 'PATCH', '/v2/users/{userID}/challenges/{challengeID}', { params, body: { value } });
    expect(verified.status).toBe(200);
    expect(json(verified).status).toBe('completed');
    const got = await call('backend', 'GET', '/v2/users/{userID}/challenges/{challengeID}', { params });
    expect(got.status).toBe(200);
    expect(json(got)).not.toHaveProperty('value');
    expect((await call('backend', 'PATCH', '/v2/users/{userID}/challenges/{challengeID}', { params, body: { value } })).status).toBe(409);
  });

  it('passkeys: B2, B4 and B6 starts, the credential list', async () => {
    const b2 = await call('backend', 'POST', '/v2/passkey/append/start', {
      body: { userID, processID: 'proc-openapi', username: 'ada@example.com', clientInformation: backendClientInformation, passkeyIntelFlags: { forcePasskeyAppend: true }, situation: 'default' },
    });
    expect(b2.status).toBe(200);
    expect(typeof json(b2).attestationOptions).toBe('string');
    const b4 = await call('backend', 'POST', '/v2/passkey/login/start', {
      body: { userID, processID: 'proc-openapi', clientInformation: backendClientInformation, crossDeviceAuthenticationStrategy: 'standard' },
    });
    expect(b4.status).toBe(200);
    const b6 = await call('backend', 'POST', '/v2/passkey/mediation/start', { body: { clientInformation: backendClientInformation, processID: 'proc-openapi' } });
    expect(b6.status).toBe(200);
    const list = await call('backend', 'GET', '/v2/users/{userID}/credentials', { params: { userID }, query: '?page=1&pageSize=10' });
    expect(list.status).toBe(200);
  });

  it('passkey events: create (with and without expires), list, delete; passkey challenges: list, mark consumed', async () => {
    const created = await call('backend', 'POST', '/v2/users/{userID}/passkeyEvents', {
      params: { userID },
      body: { eventType: 'user-login-blacklisted', expires: Math.floor(Date.now() / 1000) + 600, processID: 'proc-openapi', clientEnvID: 'ceh-1', credentialID: 'cre-1' },
    });
    expect(created.status).toBe(200);
    expect((await call('backend', 'POST', '/v2/users/{userID}/passkeyEvents', { params: { userID }, body: { eventType: 'login-error' } })).status).toBe(200);
    const events = await call('backend', 'GET', '/v2/users/{userID}/passkeyEvents', { params: { userID }, query: `?filter[]=${encodeURIComponent('eventType:eq:login-error')}&sort=created:desc&page=1&pageSize=10` });
    expect({ status: events.status, total: json(events).paging.totalItems }).toEqual({ status: 200, total: 1 });
    const deleted = await call('backend', 'DELETE', '/v2/users/{userID}/passkeyEvents/{passkeyEventID}', { params: { userID, passkeyEventID: json(created).passkeyEventID } });
    expect(deleted.status).toBe(200);
    const challenges = await call('backend', 'GET', '/v2/users/{userID}/passkeyChallenges', { params: { userID }, query: '?page=1&pageSize=10' });
    expect(challenges.status).toBe(200);
    const pending = (json(challenges).passkeyChallenges as Array<{ challengeID: string; status: string }>).find((c) => c.status === 'pending')!;
    const consumed = await call('backend', 'PATCH', '/v2/users/{userID}/passkeyChallenges/{passkeyChallengeID}', {
      params: { userID, passkeyChallengeID: pending.challengeID },
      body: { status: 'consumed' },
    });
    expect({ status: consumed.status, challenge: json(consumed).status }).toEqual({ status: 200, challenge: 'consumed' });
  });

  it('errors: 400 (validation, bad JSON, bad path parameter), 401, 404, 405, 415', async () => {
    const b1 = '/v2/users/{userID}/challenges';
    const invalid = await call('backend', 'POST', b1, { params: { userID }, body: { challengeType: 'carrier_pigeon', identifierValue: 'ada@example.com', clientInformation: backendClientInformation } });
    expect(invalid.status).toBe(400);
    expect(json(invalid).error.validation.map((v: { field: string }) => v.field)).toContain('challengeType');
    const wrongType = await call('backend', 'POST', b1, { params: { userID }, body: { challengeType: 7, identifierValue: 'ada@example.com', clientInformation: backendClientInformation } });
    expect(wrongType.status).toBe(400);
    expect((await call('backend', 'POST', b1, { params: { userID }, rawBody: '{"challengeType": ' })).status).toBe(400);
    expect((await call('backend', 'GET', '/v2/users/{userID}', { params: { userID: 'user-1' } })).status).toBe(400);
    expect((await call('backend', 'GET', '/v2/users/{userID}', { params: { userID }, auth: null })).status).toBe(401);
    expect((await call('backend', 'GET', '/v2/users/{userID}', { params: { userID }, auth: basic({ projectID: project.projectID, apiSecret: 'corbado1_wrongwrongwrongwrongwrongwrong' }) })).status).toBe(401);
    expect((await call('backend', 'GET', '/v2/users/{userID}', { params: { userID: 'usr-999999999' } })).status).toBe(404);
    expect((await call('backend', 'GET', '/v2/nothing-here')).status).toBe(404);
    const notAllowed = await call('backend', 'GET', b1, { params: { userID } });
    expect(notAllowed.status).toBe(405);
    expect((await call('backend', 'DELETE', '/v2/identifiers')).status).toBe(405);
    expect((await call('backend', 'POST', b1, { params: { userID }, rawBody: 'challengeType=email_otp', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(415);
    // Frontend routes are not on the backend listener.
    expect((await call('backend', 'GET', '/.well-known/jwks')).status).toBe(404);
  });

  it('webhook endpoints: create (with its signing secret), list, get, update, rotate, delivery log, bad URL (400), delete (genericRsp), unknown (404)', async () => {
    const created = await call('backend', 'POST', '/v2/webhookEndpoints', {
      body: { url: 'http://127.0.0.1:9/hooks', basicAuthUsername: 'hook', basicAuthPassword: 'secret', subscribedEvents: ['user.created'], customHeaders: { 'X-App': 'demo' } },
    });
    expect(created.status).toBe(200);
    const webhookEndpointID = json(created).id as string;
    expect((await call('backend', 'GET', '/v2/webhookEndpoints')).status).toBe(200);
    expect((await call('backend', 'POST', '/v2/webhookEndpoints', { body: { url: 'ftp://127.0.0.1/', subscribedEvents: ['user.created'] } })).status).toBe(400);
    const one = '/v2/webhookEndpoints/{webhookEndpointID}';
    expect((await call('backend', 'GET', one, { params: { webhookEndpointID } })).status).toBe(200);
    // An event for it: its delivery to the closed port fails, and the log shows the attempt.
    expect((await call('backend', 'POST', '/v2/users', { body: { status: 'active' } })).status).toBe(200);
    await expect
      .poll(async () => json(await call('backend', 'GET', `${one}/deliveries`, { params: { webhookEndpointID } })).deliveries[0]?.attempts.length ?? 0, { timeout: 15_000 })
      .toBeGreaterThan(0);
    expect((await call('backend', 'PATCH', one, { params: { webhookEndpointID }, body: { subscribedEvents: ['user.created', 'user.deleted'], enabled: false } })).status).toBe(200);
    expect((await call('backend', 'PATCH', one, { params: { webhookEndpointID }, body: { url: 'ftp://127.0.0.1/' } })).status).toBe(400);
    const rotated = await call('backend', 'POST', `${one}/signingSecret`, { params: { webhookEndpointID }, body: { overlapSeconds: 3600 } });
    expect(json(rotated)).toMatchObject({ signingSecret: expect.stringMatching(/^whsec_/), previousSecretExpiresMs: expect.any(Number) });
    expect((await call('backend', 'GET', `${one}/deliveries`, { params: { webhookEndpointID }, query: '?filter[]=status:eq:failed&sort=created:asc&page=1&pageSize=5' })).status).toBe(200);
    expect((await call('backend', 'GET', `${one}/deliveries`, { params: { webhookEndpointID: 'whe-1' } })).status).toBe(404);
    expect((await call('backend', 'DELETE', '/v2/webhookEndpoints/{webhookEndpointID}', { params: { webhookEndpointID } })).status).toBe(200);
    expect((await call('backend', 'DELETE', '/v2/webhookEndpoints/{webhookEndpointID}', { params: { webhookEndpointID } })).status).toBe(404);
  });

  it('delete the user (genericRsp), then it is gone (404)', async () => {
    expect((await call('backend', 'DELETE', '/v2/users/{userID}', { params: { userID } })).status).toBe(200);
    expect((await call('backend', 'GET', '/v2/users/{userID}', { params: { userID } })).status).toBe(404);
  });
});

describe('recorded answers of the frontend API match its document', () => {
  it('JWKS at both paths, session config by client key and by X-Corbado-ProjectID', async () => {
    const byHeader = { 'x-corbado-projectid': project.projectID };
    for (const path of ['/.well-known/jwks', '/.well-known/jwks.json']) {
      const r = await call('frontend', 'GET', path, { headers: byHeader });
      expect(r.status).toBe(200);
      expect(json(r).keys.length).toBeGreaterThan(0);
    }
    expect((await call('frontend', 'GET', '/v2/session-config', { headers: byHeader })).status).toBe(200);
    expect((await call('frontend', 'GET', '/v2/session-config', { headers: { authorization: `Bearer ${project.clientKey}` } })).status).toBe(200);
  });

  it("user details: the config, then the signed-in user's name and identifiers (genericRsp), their errors, the account delete", async () => {
    expect((await call('frontend', 'GET', '/v2/user-details-config', { headers: { 'x-corbado-projectid': project.projectID } })).status).toBe(200);
    const user = json(await call('backend', 'POST', '/v2/users', { body: { fullName: 'Grace', status: 'active' } })).userID as string;
    await call('backend', 'POST', '/v2/users/{userID}/identifiers', { params: { userID: user }, body: { identifierType: 'email', identifierValue: 'grace@example.com', status: 'verified' } });
    const session = await sessionFor(user);
    const bearer = { authorization: `Bearer ${session}`, 'x-corbado-projectid': project.projectID };
    expect((await call('frontend', 'PATCH', '/v2/me', { headers: bearer, body: { fullName: 'Grace Hopper' } })).status).toBe(200);
    expect((await call('frontend', 'POST', '/v2/me/identifier', { headers: bearer, body: { identifierType: 'username', value: 'grace' } })).status).toBe(200);
    expect((await call('frontend', 'POST', '/v2/me/identifier', { headers: bearer, body: { identifierType: 'username', value: 'again' } })).status).toBe(409);
    const identifiers = json(await call('frontend', 'GET', '/v2/me', { headers: bearer })).identifiers as Array<{ id: string; type: string }>;
    const username = identifiers.find((i) => i.type === 'username')!.id;
    expect((await call('frontend', 'PATCH', '/v2/me/identifier', { headers: bearer, body: { identifierID: username, identifierType: 'username', value: 'hopper' } })).status).toBe(200);
    expect((await call('frontend', 'DELETE', '/v2/me/identifier', { headers: bearer, body: { identifierID: 'ide-1' } })).status).toBe(404);
    expect((await call('frontend', 'DELETE', '/v2/me/identifier', { headers: bearer, query: `?identifierID=${username}` })).status).toBe(200);
    expect((await call('frontend', 'PATCH', '/v2/me', { headers: bearer, body: {} })).status).toBe(400);
    expect((await call('frontend', 'DELETE', '/v2/me', { headers: bearer })).status).toBe(200);
    expect((await call('frontend', 'DELETE', '/v2/me', { headers: bearer })).status).toBe(401);
  });

  it('a sign-up corrects its email (identifier update) and polls its verification status (Block responses)', async () => {
    // A browser that can create passkeys: the sign-up goes to passkey-append (this project's codes are the app's to deliver).
    const capable = { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true };
    const init = json(await call('frontend', 'POST', '/v2/auth/process/init', { headers: { 'x-corbado-projectid': project.projectID }, body: { clientInformation: capable } }));
    const process = { 'x-corbado-process-id': init.token as string, 'x-corbado-projectid': project.projectID };
    expect((await call('frontend', 'POST', '/v2/auth/signup/init', { headers: process, body: { identifiers: [{ type: 'email', identifier: 'typo@exmaple.com' }] } })).status).toBe(200);
    const fixed = await call('frontend', 'POST', '/v2/auth/identifier/update', { headers: process, body: { identifierType: 'email', value: 'fixed@example.com' } });
    expect(json(fixed).blockBody.data.identifierValue).toBe('fixed@example.com');
    expect(json(await call('frontend', 'POST', '/v2/auth/identifier/update', { headers: process, body: { identifierType: 'email', value: 'nope' } })).blockBody.error.code).toBe('identifier_invalid_format');
    expect((await call('frontend', 'POST', '/v2/auth/identifier/update', { headers: process, body: { identifierType: 'phone', value: '+4915112345678' } })).status).toBe(400);
    // No verification runs in passkey-append: 409.
    expect((await call('frontend', 'GET', '/v2/auth/identifier/verify/status', { headers: process })).status).toBe(409);
    expect((await call('frontend', 'GET', '/v2/auth/identifier/verify/status', { headers: { 'x-corbado-projectid': project.projectID } })).status).toBe(401);
  });

  it('errors: 400 without a project, 401 without credentials, 404 for an unknown project or path, 405', async () => {
    expect((await call('frontend', 'GET', '/.well-known/jwks')).status).toBe(400);
    expect((await call('frontend', 'GET', '/v2/session-config')).status).toBe(401);
    expect((await call('frontend', 'GET', '/v2/session-config', { headers: { authorization: 'Bearer not-a-jwt' } })).status).toBe(401);
    expect((await call('frontend', 'GET', '/.well-known/jwks', { headers: { 'x-corbado-projectid': 'pro-999999999' } })).status).toBe(404);
    expect((await call('frontend', 'GET', '/v2/users')).status).toBe(404);
    expect((await call('frontend', 'POST', '/v2/session-config', { body: {} })).status).toBe(405);
  });
});

describe('the reference served by the real gateway process', () => {
  it('serves /docs and its assets on both listeners', async () => {
    for (const listener of ['frontend', 'backend'] as const) {
      const page = await fetch(`${baseUrl(listener)}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(await page.text()).toContain('docs/swagger-ui-bundle.js');
      const css = await fetch(`${baseUrl(listener)}/docs/swagger-ui.css`);
      expect(css.status).toBe(200);
      expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    }
  });

  it('every call above was validated, and they cover every documented status class used', () => {
    const statuses = new Set(recorded.map((r) => r.status));
    for (const status of [200, 400, 401, 404, 405, 409, 415]) expect(statuses, String(status)).toContain(status);
    const operations = new Set(recorded.filter((r) => docs[r.listener].paths[r.template]?.[r.method.toLowerCase()]).map((r) => `${r.listener} ${r.method} ${r.template}`));
    // Representative, not exhaustive: the ceremonies' finish steps need an authenticator (see passkeys.test.ts).
    expect(operations.size).toBeGreaterThanOrEqual(17);
    expect(recorded.length).toBeGreaterThanOrEqual(40);
  });
});
