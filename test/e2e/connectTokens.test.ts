/**
 * Connect tokens end to end: /v2/connectTokens through the real gateway with HTTP Basic auth, into
 * the real connect service, in the reference API's shapes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

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
  expect(r.status).toBe(status);
  expect(r.body.httpStatusCode).toBe(status);
  expect(r.body.error.type).toBe(type);
  if (fields) expect(r.body.error.validation.map((v: { field: string }) => v.field)).toEqual(fields);
}

function expectGenericRsp(r: Rsp) {
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ httpStatusCode: 200, message: 'OK', requestData: { requestID: expect.stringMatching(/^req-/), link: '' }, runtime: expect.any(Number) });
}

const createToken = (body: unknown, as?: ProjectJson) => call('/v2/connectTokens', { body, as });
const listTokens = (query = '', as?: ProjectJson) => call(`/v2/connectTokens${query}`, { method: 'GET', as });
const patchToken = (id: string, status: unknown, as?: ProjectJson) => call(`/v2/connectTokens/${id}`, { method: 'PATCH', body: { status }, as });
const deleteToken = (id: string, as?: ProjectJson) => call(`/v2/connectTokens/${id}`, { method: 'DELETE', as });

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('connect-tokens-e2e');
  other = await stack.createProject('connect-tokens-e2e-other');
}, 120_000);
afterAll(async () => stack?.stop());

describe('/v2/connectTokens', () => {
  it('POST answers the reference connectToken, with its secret', async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await createToken({ type: 'passkey-append', data: { identifier: 'ada@example.com', displayName: 'Ada Lovelace' }, maxLifetimeInSeconds: 600 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^ctk-[0-9]{20}$/),
      tokenType: 'passkey-append',
      data: { identifier: 'ada@example.com', displayName: 'Ada Lovelace' },
      connectTokenStatus: 'initial',
      secret: expect.stringMatching(/^ctk_[A-Za-z0-9_-]{43}$/),
      expires: expect.any(Number),
    });
    expect(r.body.expires).toBeGreaterThanOrEqual(before + 600);
    expect(r.body.expires).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 600);
    // Only the hash is stored.
    const doc = await stack.db.collection('connect_tokens').findOne({ _id: r.body.id } as never);
    expect(JSON.stringify(doc)).not.toContain(r.body.secret);
  });

  it('GET lists the project\'s tokens without secrets, filtered and paged', async () => {
    const created = (await createToken({ type: 'passkey-list', data: { identifier: 'list@example.com' } })).body;
    await createToken({ type: 'passkey-delete', data: { identifier: 'list@example.com' } });
    const r = await listTokens('?filter[]=identifier:eq:list@example.com&filter[]=tokenType:eq:passkey-list&sort=created:desc&page=1&pageSize=10');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      connectTokens: [{ id: created.id, tokenType: 'passkey-list', data: { identifier: 'list@example.com' }, connectTokenStatus: 'initial', expires: created.expires }],
      paging: { page: 1, totalPages: 1, totalItems: 1 },
    });
    const all = await listTokens('?sort=&pageSize=100');
    expect(all.body.connectTokens.length).toBeGreaterThanOrEqual(2);
    expect(all.body.connectTokens.every((t: Record<string, unknown>) => !('secret' in t))).toBe(true);
  });

  it('PATCH consumed revokes (genericRsp); initial afterwards is 409; DELETE then 404', async () => {
    const { id } = (await createToken({ type: 'passkey-delete', data: { identifier: 'patch@example.com' } })).body;
    expectGenericRsp(await patchToken(id, 'initial'));
    expectGenericRsp(await patchToken(id, 'consumed'));
    expectGenericRsp(await patchToken(id, 'consumed'));
    const listed = await listTokens('?filter[]=identifier:eq:patch@example.com');
    expect(listed.body.connectTokens.map((t: { connectTokenStatus: string }) => t.connectTokenStatus)).toEqual(['consumed']);
    expectError(await patchToken(id, 'initial'), 409, 'connect_token_consumed');
    expectGenericRsp(await deleteToken(id));
    expectError(await deleteToken(id), 404, 'connect_token_not_found');
    expectError(await patchToken(id, 'consumed'), 404, 'connect_token_not_found');
  });

  it('another project cannot see, change or delete a token', async () => {
    const { id } = (await createToken({ type: 'passkey-append', data: { identifier: 'mine@example.com', displayName: 'Mine' } })).body;
    const theirs = await listTokens('?filter[]=identifier:eq:mine@example.com', other);
    expect(theirs.status).toBe(200);
    expect(theirs.body.connectTokens).toEqual([]);
    expectError(await patchToken(id, 'consumed', other), 404, 'connect_token_not_found');
    expectError(await deleteToken(id, other), 404, 'connect_token_not_found');
    const mine = await listTokens('?filter[]=identifier:eq:mine@example.com');
    expect(mine.body.connectTokens.map((t: { id: string; connectTokenStatus: string }) => [t.id, t.connectTokenStatus])).toEqual([[id, 'initial']]);
  });

  it('rejects bad bodies with 400 errorRsp naming the fields', async () => {
    expectError(await createToken({ type: 'passkey-append', data: { identifier: 'ada@example.com' } }), 400, 'validation_error', ['data.displayName']);
    expectError(await createToken({ type: 'passkey-login', data: { identifier: 'ada@example.com' } }), 400, 'validation_error', ['type']);
    expectError(await createToken({ type: 'passkey-list' }), 400, 'validation_error', ['data']);
    expectError(await createToken({ type: 'passkey-list', data: { identifier: 'a' }, maxLifetimeInSeconds: 86401 }), 400, 'validation_error', ['maxLifetimeInSeconds']);
    expectError(await createToken({ type: 'passkey-list', data: { identifier: 'a' }, maxLifetimeInSeconds: '60' }), 400, 'validation_error', ['maxLifetimeInSeconds']);
    expectError(await patchToken('ctk-1', 'revoked'), 400, 'validation_error', ['status']);
    expectError(await patchToken('abc', 'consumed'), 400, 'validation_error', ['connectTokenID']);
    expectError(await listTokens('?filter[]=secret:eq:x'), 400, 'validation_error', ['filter']);
    expectError(await listTokens('?sort=identifier:asc'), 400, 'validation_error', ['sort']);
  });
});
