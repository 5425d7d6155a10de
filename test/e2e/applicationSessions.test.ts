/**
 * Sessions the application creates, through the real gateway and only over HTTP: POST
 * /v2/users/{userID}/longSessions, then POST …/longSessions/{longSessionID}/shortSessions; the short
 * session verifies against the project's JWKS (jose) and works on /v2/me (also on a sensitive
 * action, since the application's session counts as an authentication at its creation); revoking
 * the long session refuses both; bad input is a 400 naming the field, another project's objects 404,
 * a disabled user gets no session. The published Node SDK's generated SessionsApi calls the routes too.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The published Node SDK's generated backend client (its package exports only SDK and Config): the reference's own request shapes.
import { Configuration, SessionsApi } from '../../node_modules/@corbado/node-sdk/esm/generated/index.js';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';

let stack: Stack;
let project: ProjectJson;
let other: ProjectJson;

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('app-sessions-e2e', [ORIGIN], ['--self-service', 'enabled']);
  other = await stack.createProject('app-sessions-e2e-other', [ORIGIN]);
}, 120_000);
afterAll(async () => stack?.stop());

type Rsp = { status: number; body: Record<string, any> };

async function back(method: string, path: string, body?: unknown, as: ProjectJson = project): Promise<Rsp> {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method,
    headers: { authorization: basic(as), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

async function front(method: string, path: string, token: string, body?: unknown): Promise<Rsp> {
  const res = await fetch(`${stack.frontendUrl}${path}`, {
    method,
    headers: { 'x-corbado-projectid': project.projectID, origin: ORIGIN, authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

function expectError(r: Rsp, status: number, type: string, field?: string) {
  expect({ status: r.status, type: r.body.error?.type }).toEqual({ status, type });
  if (field) expect((r.body.error.validation as Array<{ field: string }>).map((v) => v.field)).toEqual([field]);
}

/** A user (backend API) with one verified email address. */
async function newUser(email: string, as: ProjectJson = project): Promise<string> {
  const created = await back('POST', '/v2/users', { fullName: 'App Session User', status: 'active' }, as);
  expect(created.status).toBe(200);
  const userID = created.body.userID as string;
  expect((await back('POST', `/v2/users/${userID}/identifiers`, { identifierType: 'email', identifierValue: email, status: 'verified' }, as)).status).toBe(200);
  return userID;
}

const shortSessionPath = (userID: string, longSessionID: string) => `/v2/users/${userID}/longSessions/${longSessionID}/shortSessions`;

describe('sessions the application creates', () => {
  it('long session → short session: verifies against the JWKS, works on /v2/me (sensitive actions too); revoked, both are refused', async () => {
    const userID = await newUser('app-ada@example.com');
    const created = await back('POST', `/v2/users/${userID}/longSessions`, { appType: 'web', identifierValue: 'App-Ada@example.com' });
    expect(created.status).toBe(200);
    // Exactly the reference's longSession: no token in it.
    expect(created.body).toEqual({ longSessionID: expect.stringMatching(/^ses-[0-9]+$/), userID, identifierValue: 'app-ada@example.com', status: 'active', expires: expect.any(String) });
    const longSessionID = created.body.longSessionID as string;
    expect(await back('GET', `/v2/longSessions/${longSessionID}`)).toEqual({ status: 200, body: created.body });

    const short = await back('POST', shortSessionPath(userID, longSessionID), { appType: 'web', issuer: project.frontendApiUrl });
    expect(short.status).toBe(200);
    expect(Object.keys(short.body)).toEqual(['value']);
    const jwks = createRemoteJWKSet(new URL(`${stack.frontendUrl}/.well-known/jwks`), { headers: { 'x-corbado-projectid': project.projectID } });
    const { payload } = await jwtVerify(short.body.value as string, jwks, { algorithms: ['ES256'], issuer: project.frontendApiUrl, audience: project.projectID });
    expect(payload).toMatchObject({ kind: 'session', sub: userID, sid: longSessionID, email: 'app-ada@example.com', email_verified: true, auth_time: expect.any(Number) });
    expect(Math.abs((payload.auth_time as number) - Date.parse(created.body.expires as string) / 1000 + 30 * 86_400)).toBeLessThanOrEqual(2);

    const meRsp = await front('GET', '/v2/me', short.body.value as string);
    expect({ status: meRsp.status, id: meRsp.body.id }).toEqual({ status: 200, id: userID });
    // A sensitive action: the application's session counts as an authentication at its creation.
    const added = await front('POST', '/v2/me/identifier', short.body.value as string, { identifierType: 'email', value: 'app-ada.work@example.com' });
    expect(added.status).toBe(200);

    const revoked = await back('PATCH', `/v2/users/${userID}/longSessions/${longSessionID}`, { status: 'revoked' });
    expect({ status: revoked.status, session: revoked.body.status }).toEqual({ status: 200, session: 'revoked' });
    expectError(await back('POST', shortSessionPath(userID, longSessionID), { appType: 'web', issuer: project.frontendApiUrl }), 409, 'session_ended');
    expectError(await front('GET', '/v2/me', short.body.value as string), 401, 'session_ended');
  });

  it('logging out with the short session ends the long session (logged_out)', async () => {
    const userID = await newUser('app-logout@example.com');
    const longSessionID = (await back('POST', `/v2/users/${userID}/longSessions`, { appType: 'native', identifierValue: 'app-logout@example.com' })).body.longSessionID as string;
    const short = await back('POST', shortSessionPath(userID, longSessionID), { appType: 'native', issuer: project.frontendApiUrl });
    expect((await front('POST', '/v2/me/logout', short.body.value as string, {})).status).toBe(204);
    expect((await back('GET', `/v2/longSessions/${longSessionID}`)).body.status).toBe('logged_out');
    expectError(await back('POST', shortSessionPath(userID, longSessionID), { appType: 'native', issuer: project.frontendApiUrl }), 409, 'session_ended');
  });

  it('bad input is a 400 naming the field; nothing is created', async () => {
    const userID = await newUser('app-bad@example.com');
    const longSessionID = (await back('POST', `/v2/users/${userID}/longSessions`, { appType: 'web', identifierValue: 'app-bad@example.com' })).body.longSessionID as string;
    expectError(await back('POST', `/v2/users/${userID}/longSessions`, { appType: 'tv', identifierValue: 'app-bad@example.com' }), 400, 'validation_error', 'appType');
    expectError(await back('POST', `/v2/users/${userID}/longSessions`, { appType: 'web' }), 400, 'validation_error', 'identifierValue');
    expectError(await back('POST', `/v2/users/${userID}/longSessions`, { appType: 'web', identifierValue: 'someone@example.com' }), 400, 'validation_error', 'identifierValue');
    expectError(await back('POST', '/v2/users/not-a-user/longSessions', { appType: 'web', identifierValue: 'app-bad@example.com' }), 400, 'validation_error', 'userID');
    expectError(await back('POST', shortSessionPath(userID, longSessionID), { appType: 'web' }), 400, 'validation_error', 'issuer');
    expectError(await back('POST', shortSessionPath(userID, longSessionID), { appType: 'web', issuer: 'https://elsewhere.example.com' }), 400, 'validation_error', 'issuer');
    expectError(await back('POST', shortSessionPath(userID, longSessionID), { issuer: project.frontendApiUrl }), 400, 'validation_error', 'appType');
    expect((await back('GET', `/v2/users/${userID}/longSessions`)).body.paging.totalItems).toBe(1);
  });

  it('another project\'s user or session is 404', async () => {
    const userID = await newUser('app-tenant@example.com');
    const longSessionID = (await back('POST', `/v2/users/${userID}/longSessions`, { appType: 'web', identifierValue: 'app-tenant@example.com' })).body.longSessionID as string;
    expectError(await back('POST', `/v2/users/${userID}/longSessions`, { appType: 'web', identifierValue: 'app-tenant@example.com' }, other), 404, 'user_not_found');
    expectError(await back('POST', shortSessionPath(userID, longSessionID), { appType: 'web', issuer: other.frontendApiUrl }, other), 404, 'session_not_found');
    const stranger = await newUser('app-stranger@example.com');
    expectError(await back('POST', shortSessionPath(stranger, longSessionID), { appType: 'web', issuer: project.frontendApiUrl }), 404, 'session_not_found');
  });

  it('a disabled user cannot get one: no long session, no short session', async () => {
    const userID = await newUser('app-disabled@example.com');
    const longSessionID = (await back('POST', `/v2/users/${userID}/longSessions`, { appType: 'web', identifierValue: 'app-disabled@example.com' })).body.longSessionID as string;
    expect((await back('PATCH', `/v2/users/${userID}`, { status: 'disabled' })).status).toBe(200);
    expectError(await back('POST', `/v2/users/${userID}/longSessions`, { appType: 'web', identifierValue: 'app-disabled@example.com' }), 409, 'user_disabled');
    expectError(await back('POST', shortSessionPath(userID, longSessionID), { appType: 'web', issuer: project.frontendApiUrl }), 409, 'user_disabled');
    expect((await back('GET', `/v2/longSessions/${longSessionID}`)).body.status).toBe('revoked');
  });

  it('the Node SDK\'s generated SessionsApi creates a long session and a short session, and revokes it', async () => {
    const userID = await newUser('app-sdk@example.com');
    const api = new SessionsApi(new Configuration({ username: project.projectID, password: project.apiSecret, basePath: `${stack.backendUrl}/v2` }));
    const long = (await api.longSessionCreate(userID, { appType: 'web', identifierValue: 'app-sdk@example.com' })).data;
    expect(long).toMatchObject({ userID, identifierValue: 'app-sdk@example.com', status: 'active' });
    const short = (await api.shortSessionCreate(userID, long.longSessionID, { appType: 'web', issuer: project.frontendApiUrl })).data;
    expect((await front('GET', '/v2/me', short.value)).status).toBe(200);
    expect((await api.longSessionUpdate(userID, long.longSessionID, { status: 'revoked' })).data.status).toBe('revoked');
    expect((await api.userLongSessionGet(userID, long.longSessionID)).data.status).toBe('revoked');
    await expect(api.shortSessionCreate(userID, long.longSessionID, { appType: 'web', issuer: project.frontendApiUrl })).rejects.toMatchObject({ response: { status: 409 } });
  });
});
