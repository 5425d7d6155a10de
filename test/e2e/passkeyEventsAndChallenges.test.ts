/**
 * The backend API's passkey events and passkey challenges end to end: through the real gateway
 * with HTTP Basic auth into the real ceremony and connect services, with the software
 * authenticator playing the browser. Covers each route, bad input, another project's objects, and
 * what they change: a blacklisted user is offered no passkey login, a consumed challenge's finish fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator, type SoftCredential } from '../kit/softAuthenticator.js';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

let stack: Stack;
let project: ProjectJson;
let other: ProjectJson;

type Rsp = { status: number; body: Record<string, any> };

async function call(path: string, init: { method?: string; body?: unknown; as?: ProjectJson } = {}): Promise<Rsp> {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method: init.method ?? 'POST',
    headers: { authorization: basic(init.as ?? project), 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

function expectError(r: Rsp, status: number, type: string, fields?: string[]) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.httpStatusCode).toBe(status);
  expect(r.body.error.type).toBe(type);
  if (fields) expect(r.body.error.validation.map((v: { field: string }) => v.field)).toEqual(fields);
}

async function createUser(as: ProjectJson = project): Promise<string> {
  const r = await call('/v2/users', { as, body: { fullName: 'Ada Lovelace', status: 'active' } });
  expect(r.status).toBe(200);
  return r.body.userID as string;
}

const events = (userID: string, query = '', as?: ProjectJson) => call(`/v2/users/${userID}/passkeyEvents${query}`, { method: 'GET', as });
const createEvent = (userID: string, body: Record<string, unknown>, as?: ProjectJson) => call(`/v2/users/${userID}/passkeyEvents`, { body, as });
const deleteEvent = (userID: string, id: string, as?: ProjectJson) => call(`/v2/users/${userID}/passkeyEvents/${id}`, { method: 'DELETE', as });
const challenges = (userID: string, query = '', as?: ProjectJson) => call(`/v2/users/${userID}/passkeyChallenges${query}`, { method: 'GET', as });
const patchChallenge = (userID: string, id: string, body: unknown, as?: ProjectJson) => call(`/v2/users/${userID}/passkeyChallenges/${id}`, { method: 'PATCH', body, as });

const loginStart = (userID: string) =>
  call('/v2/passkey/login/start', { body: { userID, processID: 'proc-login', clientInformation: backendClientInformation, crossDeviceAuthenticationStrategy: 'standard' } });
const loginFinish = (userID: string, assertion: unknown) =>
  call('/v2/passkey/login/finish', { body: { userID, processID: 'proc-login', assertionResponse: JSON.stringify(assertion), trackingID: 'trk-login', clientInformation: backendClientInformation } });

/** B2 → authenticator → B3, which must succeed. */
async function register(userID: string): Promise<{ auth: SoftAuthenticator; credential: SoftCredential }> {
  const auth = new SoftAuthenticator({ flags: { be: true } });
  const start = await call('/v2/passkey/append/start', {
    body: { userID, processID: 'proc-append', username: 'ada@example.com', clientInformation: backendClientInformation, passkeyIntelFlags: {}, situation: 'default' },
  });
  expect(start.status).toBe(200);
  const { json, credential } = auth.createFromOptions(start.body.attestationOptions, ORIGIN);
  const finish = await call('/v2/passkey/append/finish', { body: { userID, processID: 'proc-append', attestationResponse: JSON.stringify(json), trackingID: 'trk-append', clientInformation: backendClientInformation } });
  expect(finish.status, JSON.stringify(finish.body)).toBe(200);
  return { auth, credential };
}

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('passkey-ops-e2e', [ORIGIN]);
  other = await stack.createProject('passkey-ops-e2e-other', ['http://localhost:4000']);
}, 120_000);
afterAll(async () => stack?.stop());

describe('passkey events', () => {
  it('POST creates, GET lists with paging/filter/sort, DELETE removes', async () => {
    const userID = await createUser();
    const expires = Math.floor(Date.now() / 1000) + 3600;
    const a = await createEvent(userID, { eventType: 'login-error', processID: 'proc-1', clientEnvID: 'ceh-1', credentialID: 'cre-1' });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(a.body).toEqual({
      passkeyEventID: expect.stringMatching(/^pke-[0-9]+$/),
      userID,
      eventType: 'login-error',
      processID: 'proc-1',
      clientEnvID: 'ceh-1',
      credentialID: 'cre-1',
      created: expect.stringMatching(TIMESTAMP),
    });
    const b = await createEvent(userID, { eventType: 'append-error', expires });
    expect(b.body).toMatchObject({ eventType: 'append-error', expires });

    const all = await events(userID, '?sort=created:asc&page=1&pageSize=10');
    expect(all.status).toBe(200);
    expect(all.body.passkeyEvents.map((e: { passkeyEventID: string }) => e.passkeyEventID)).toEqual([a.body.passkeyEventID, b.body.passkeyEventID]);
    expect(all.body.paging).toEqual({ page: 1, totalPages: 1, totalItems: 2 });
    const filtered = await events(userID, '?filter[]=eventType:eq:append-error');
    expect(filtered.body.passkeyEvents).toEqual([b.body]);

    const del = await deleteEvent(userID, a.body.passkeyEventID);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ httpStatusCode: 200, message: 'OK' });
    expect((await events(userID)).body.paging.totalItems).toBe(1);
    expectError(await deleteEvent(userID, a.body.passkeyEventID), 404, 'passkey_event_not_found');
  });

  it('bad input is 400 naming the field', async () => {
    const userID = await createUser();
    expectError(await createEvent(userID, { eventType: 'login-maybe' }), 400, 'validation_error', ['eventType']);
    expectError(await createEvent(userID, {}), 400, 'validation_error', ['eventType']);
    expectError(await createEvent(userID, { eventType: 'login-error', expires: 1 }), 400, 'validation_error', ['expires']);
    expectError(await createEvent(userID, { eventType: 'login-error', processID: '<script>' }), 400, 'validation_error', ['processID']);
    expectError(await events(userID, '?filter[]=eventType:eq:nope'), 400, 'validation_error', ['filter']);
    expectError(await events(userID, '?sort=userID:asc'), 400, 'validation_error', ['sort']);
    expectError(await events(userID, '?pageSize=1000'), 400, 'validation_error', ['pageSize']);
    expectError(await deleteEvent(userID, 'evt-1'), 400, 'validation_error', ['passkeyEventID']);
  });

  it("another project's user and event are 404", async () => {
    const userID = await createUser();
    const mine = await createEvent(userID, { eventType: 'login-error' });
    expectError(await createEvent(userID, { eventType: 'login-error' }, other), 404, 'user_not_found');
    expectError(await events(userID, '', other), 404, 'user_not_found');
    expectError(await deleteEvent(userID, mine.body.passkeyEventID, other), 404, 'passkey_event_not_found');
    expect((await events(userID)).body.passkeyEvents).toHaveLength(1);
  });

  it('user-login-blacklisted means no passkey login is offered, until it is deleted', async () => {
    const userID = await createUser();
    await register(userID);
    expect((await loginStart(userID)).body.loginAllow).toBe(true);
    const ev = await createEvent(userID, { eventType: 'user-login-blacklisted', expires: Math.floor(Date.now() / 1000) + 600 });
    expect(ev.status).toBe(200);
    const refused = await loginStart(userID);
    expect(refused.status).toBe(200);
    expect(refused.body.loginAllow).toBe(false);
    expect(refused.body.decisionInsights.tag).toBe('user-login-blacklisted');
    await deleteEvent(userID, ev.body.passkeyEventID);
    expect((await loginStart(userID)).body.loginAllow).toBe(true);
  });
});

describe('passkey challenges', () => {
  it("GET lists the user's ceremony challenges; PATCH consumed makes the finish fail like a used challenge", async () => {
    const userID = await createUser();
    const { auth, credential } = await register(userID);
    const start = await loginStart(userID);
    const challenge = JSON.parse(start.body.assertionOptions).publicKey.challenge;

    const list = await challenges(userID, '?sort=created:desc&page=1&pageSize=10');
    expect(list.status).toBe(200);
    expect(list.body.paging).toEqual({ page: 1, totalPages: 1, totalItems: 2 });
    const [login, append] = list.body.passkeyChallenges;
    expect(login).toEqual({ challengeID: expect.stringMatching(/^pch-[0-9]+$/), type: 'authenticate', value: challenge, status: 'pending', created: expect.any(Number), expires: expect.any(Number) });
    expect(login.expires - login.created).toBe(300);
    expect(append).toMatchObject({ type: 'register', status: 'completed' });
    expect((await challenges(userID, '?filter[]=status:eq:pending')).body.passkeyChallenges).toEqual([login]);
    expect((await challenges(userID, '?filter[]=type:eq:register')).body.passkeyChallenges).toEqual([append]);

    const patched = await patchChallenge(userID, login.challengeID, { status: 'consumed' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toEqual({ ...login, status: 'consumed' });

    // The same error a replayed (already used) challenge gets.
    const assertion = auth.getFromOptions(start.body.assertionOptions, credential, ORIGIN);
    const finish = await loginFinish(userID, assertion);
    expectError(finish, 409, 'challenge_not_found_or_used');
    const replay = await loginFinish(userID, assertion);
    expectError(replay, 409, 'challenge_not_found_or_used');

    // A fresh login still works.
    const fresh = await loginStart(userID);
    const ok = await loginFinish(userID, auth.getFromOptions(fresh.body.assertionOptions, credential, ORIGIN));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expectError(await patchChallenge(userID, append.challengeID, { status: 'consumed' }), 409, 'passkey_challenge_completed');
  });

  it('bad input is 400 naming the field; another project is 404', async () => {
    const userID = await createUser();
    await loginStart(userID);
    const [pending] = (await challenges(userID)).body.passkeyChallenges;
    expectError(await patchChallenge(userID, pending.challengeID, { status: 'done' }), 400, 'validation_error', ['status']);
    expectError(await patchChallenge(userID, pending.challengeID, { status: 'completed' }), 400, 'validation_error', ['status']);
    expectError(await patchChallenge(userID, 'chal-1', { status: 'consumed' }), 400, 'validation_error', ['passkeyChallengeID']);
    expectError(await challenges(userID, '?filter[]=type:eq:create'), 400, 'validation_error', ['filter']);
    expectError(await challenges(userID, '?sort=value:asc'), 400, 'validation_error', ['sort']);
    expectError(await challenges(userID, '', other), 404, 'user_not_found');
    expectError(await patchChallenge(userID, pending.challengeID, { status: 'consumed' }, other), 404, 'passkey_challenge_not_found');
    expect((await challenges(userID)).body.passkeyChallenges[0].status).toBe('pending');
  });
});
