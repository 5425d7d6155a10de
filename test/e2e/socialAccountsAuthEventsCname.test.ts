/**
 * Through the gateway's backend listener, end to end: social accounts (POST/GET
 * /v2/users/{userID}/socialAccounts, GET /v2/socialAccounts) in connect, auth events (POST
 * /v2/users/{userID}/authEvents) in ceremony, and the project's CNAME (PUT /v2/projectConfig/cname)
 * in connect: the reference's shapes, 400 naming the field, 404 for another project's user, 409
 * for a linked provider account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

let stack: Stack;
let A: ProjectJson;
let B: ProjectJson;
let userA: string;
let userB: string;

async function backend(project: ProjectJson, method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method,
    headers: { authorization: basic(project), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function newUser(project: ProjectJson): Promise<string> {
  const r = await backend(project, 'POST', '/v2/users', { fullName: 'Ada Lovelace', status: 'active' });
  expect(r.status).toBe(200);
  return r.body.userID;
}

const social = (over: Record<string, unknown> = {}) => ({
  providerType: 'github',
  identifierValue: 'ada@example.com',
  foreignID: '583231',
  avatarURL: 'https://avatars.example.com/u/583231',
  fullName: 'Ada Lovelace',
  ...over,
});

const authEvent = (over: Record<string, unknown> = {}) => ({
  username: 'ada@example.com',
  eventType: 'login',
  method: 'password',
  status: 'success',
  clientInformation: backendClientInformation,
  ...over,
});

const fieldsOf = (body: any): string[] => (body.error?.validation ?? []).map((v: { field: string }) => v.field);

beforeAll(async () => {
  stack = await startStack();
  A = await stack.createProject('social-e2e-a');
  B = await stack.createProject('social-e2e-b');
  userA = await newUser(A);
  userB = await newUser(B);
}, 120_000);
afterAll(async () => stack?.stop());

describe('social accounts', () => {
  it('POST creates one in the reference shape; the user\'s GET answers a bare array, the project\'s GET a page with paging', async () => {
    const created = await backend(A, 'POST', `/v2/users/${userA}/socialAccounts`, social());
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(['avatarURL', 'foreignID', 'fullName', 'identifierValue', 'providerType', 'socialAccountID', 'userID']);
    expect(created.body).toMatchObject({ ...social(), userID: userA });
    expect(created.body.socialAccountID).toMatch(/^soc-[0-9]+$/);
    await backend(A, 'POST', `/v2/users/${userA}/socialAccounts`, social({ providerType: 'google', foreignID: '1029384756' }));

    const mine = await backend(A, 'GET', `/v2/users/${userA}/socialAccounts?sort=providerType:desc&page=1&pageSize=10`);
    expect(mine.status).toBe(200);
    expect(Array.isArray(mine.body)).toBe(true);
    expect(mine.body.map((a: any) => a.providerType)).toEqual(['google', 'github']);

    const list = await backend(A, 'GET', `/v2/socialAccounts?filter[]=${encodeURIComponent('foreignID:eq:583231')}&sort=created:asc&pageSize=5`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ socialAccounts: [created.body], paging: { page: 1, totalPages: 1, totalItems: 1 } });
    const all = await backend(A, 'GET', '/v2/socialAccounts');
    expect(all.body.paging.totalItems).toBe(2);
  });

  it('a provider account already linked in the project is 409 errorRsp', async () => {
    const other = await newUser(A);
    const dup = await backend(A, 'POST', `/v2/users/${other}/socialAccounts`, social());
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ httpStatusCode: 409, error: { type: 'social_account_already_exists' } });
    expect(dup.body.requestData.requestID).toMatch(/^req-/);
    // Another project may link the same provider account.
    expect((await backend(B, 'POST', `/v2/users/${userB}/socialAccounts`, social())).status).toBe(200);
  });

  it('bad input is 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [social({ providerType: 'facebook' }), 'providerType'],
      [social({ foreignID: '' }), 'foreignID'],
      [social({ identifierValue: '' }), 'identifierValue'],
      [social({ avatarURL: 'data:image/png;base64,AAAA' }), 'avatarURL'],
    ];
    for (const [body, field] of cases) {
      const r = await backend(A, 'POST', `/v2/users/${userA}/socialAccounts`, body);
      expect(r.status, field).toBe(400);
      expect(fieldsOf(r.body), field).toContain(field);
    }
    expect(fieldsOf((await backend(A, 'POST', '/v2/users/nobody/socialAccounts', social())).body)).toContain('userID');
    expect(fieldsOf((await backend(A, 'GET', `/v2/socialAccounts?filter[]=${encodeURIComponent('providerType:eq:myspace')}`)).body)).toEqual(['filter']);
    expect(fieldsOf((await backend(A, 'GET', '/v2/socialAccounts?sort=avatarURL:asc')).body)).toEqual(['sort']);
    expect(fieldsOf((await backend(A, 'GET', `/v2/users/${userA}/socialAccounts?pageSize=1000`)).body)).toEqual(['pageSize']);
  });

  it('another project\'s user is 404, and its accounts are not in this project\'s list', async () => {
    const post = await backend(B, 'POST', `/v2/users/${userA}/socialAccounts`, social({ foreignID: 'x-1' }));
    expect(post.status).toBe(404);
    expect(post.body.error.type).toBe('user_not_found');
    expect((await backend(B, 'GET', `/v2/users/${userA}/socialAccounts`)).status).toBe(404);
    const listB = await backend(B, 'GET', `/v2/socialAccounts?filter[]=${encodeURIComponent(`userID:eq:${userA}`)}`);
    expect(listB.body).toEqual({ socialAccounts: [], paging: { page: 1, totalPages: 0, totalItems: 0 } });
  });
});

describe('auth events', () => {
  it('POST records one in the reference shape', async () => {
    const r = await backend(A, 'POST', `/v2/users/${userA}/authEvents`, authEvent({ method: 'social_github', eventType: 'sign_up' }));
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['authEventID', 'created', 'eventType', 'method', 'status', 'userID', 'username']);
    expect(r.body).toMatchObject({ userID: userA, username: 'ada@example.com', eventType: 'sign_up', method: 'social_github', status: 'success' });
    expect(r.body.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const stored = await stack.db.collection('auth_events').findOne({ _id: r.body.authEventID } as never);
    expect(stored).toMatchObject({ projectId: A.projectID, userId: userA });
    expect(stored!.expiresAt).toBeInstanceOf(Date);
  });

  it('bad input is 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [authEvent({ eventType: 'logout' }), 'eventType'],
      [authEvent({ method: 'carrier_pigeon' }), 'method'],
      [authEvent({ status: 'maybe' }), 'status'],
      [authEvent({ username: '' }), 'username'],
      [authEvent({ clientInformation: undefined }), 'clientInformation'],
    ];
    for (const [body, field] of cases) {
      const r = await backend(A, 'POST', `/v2/users/${userA}/authEvents`, body);
      expect(r.status, field).toBe(400);
      expect(fieldsOf(r.body).join(','), field).toContain(field);
    }
  });

  it('another project\'s user is 404', async () => {
    const r = await backend(B, 'POST', `/v2/users/${userA}/authEvents`, authEvent());
    expect(r.status).toBe(404);
    expect(r.body.error.type).toBe('user_not_found');
  });
});

describe('project CNAME', () => {
  it('PUT stores the host name lower-case on the project and answers genericRsp', async () => {
    const r = await backend(A, 'PUT', '/v2/projectConfig/cname', { cname: 'Auth.Example.com' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ httpStatusCode: 200, message: 'OK' });
    const project = await stack.db.collection('projects').findOne({ _id: A.projectID } as never);
    expect(project!.cname).toBe('auth.example.com');
    // Tokens keep the frontend API URL as their issuer: only the record changed.
    expect(project!.frontendApiUrl).toBe(A.frontendApiUrl);
  });

  it('anything but a DNS host name is 400 naming cname', async () => {
    for (const cname of ['https://auth.example.com', 'auth.example.com:8443', 'auth.example.com/login', 'auth', 'auth..example.com', '10.0.0.1', '']) {
      const r = await backend(A, 'PUT', '/v2/projectConfig/cname', { cname });
      expect(r.status, cname).toBe(400);
      expect(fieldsOf(r.body), cname).toEqual(['cname']);
    }
    expect(fieldsOf((await backend(A, 'PUT', '/v2/projectConfig/cname', {})).body)).toEqual(['cname']);
  });
});
