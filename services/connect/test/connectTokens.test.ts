/**
 * Connect tokens: the backend API (create, list, update, delete) through the service's interceptors
 * in memory, and the frontend flows' claim → consume → release against the real repository with a
 * controlled clock.
 */
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import { ConnectTokenService } from '../../../gen/passkeyauth/connect/v1/connect_token_service_pb.js';
import { DomainError } from '../../runtime/errors.js';
import type { ConnectTokenDeps } from '../src/connect-tokens/domain/connectTokenDeps.js';
import { createConnectToken, type CreateConnectTokenInput } from '../src/connect-tokens/domain/createConnectToken.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { claimConnectToken, consumeConnectToken, hashConnectTokenSecret, releaseConnectToken, useRepeatableConnectToken } from '../src/connect-tokens/domain/useConnectToken.js';
import type { ConnectTokenStore } from '../src/connect-tokens/store/connectTokens.js';
import { as, inMemoryTransport, startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let rpc: Client<typeof ConnectTokenService>;
let A: string;
let B: string;

const newProject = async (name: string) => (await createProject(env.deps, { name, rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;

beforeAll(async () => {
  env = await startTestEnv();
  rpc = createClient(ConnectTokenService, inMemoryTransport(env.deps));
  A = await newProject('Tokens A');
  B = await newProject('Tokens B');
});
afterAll(() => env?.close());

async function rpcError(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    const ce = ConnectError.from(err);
    const info = ce.findDetails(ErrorInfoSchema)[0];
    return { code: ce.code, type: info?.type ?? '', validation: info?.validation.map((v) => v.field) ?? [] };
  }
  throw new Error('expected the call to fail');
}

/** The domain error a promise rejects with, as kind/type/message. */
async function domainError(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return { kind: err.kind, type: err.type, message: err.message };
  }
  throw new Error('expected the call to fail');
}

const appendReq = (identifier = 'ada@example.com', displayName = 'Ada Lovelace') => ({ type: 'passkey-append', data: { identifier, displayName } });

/** A clock the test moves; deps for the domain functions that read it. */
function clockAt(start: Date) {
  const clock = { t: start.getTime(), advance: (seconds: number) => void (clock.t += seconds * 1000) };
  const deps: ConnectTokenDeps = { connectTokens: env.deps.connectTokens, now: () => new Date(clock.t) };
  return { clock, deps };
}

const create = (deps: ConnectTokenDeps, projectId: string, o: Partial<CreateConnectTokenInput> = {}) =>
  createConnectToken(deps, { projectId, type: 'passkey-append', identifier: 'ada@example.com', displayName: 'Ada', ...o });

describe('CreateConnectToken', () => {
  it('returns the token with a one-time secret; only the secret\'s hash is stored', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { connectToken: t } = await rpc.createConnectToken(appendReq('  ada@example.com '), as(A));
    const after = Math.floor(Date.now() / 1000);
    expect(t!.id).toMatch(/^ctk-[0-9]{20}$/);
    expect(t!.secret).toMatch(/^ctk_[A-Za-z0-9_-]{43}$/);
    expect(t).toMatchObject({ tokenType: 'passkey-append', connectTokenStatus: 'initial', data: { identifier: 'ada@example.com', displayName: 'Ada Lovelace' } });
    expect(Number(t!.expires)).toBeGreaterThanOrEqual(before + 3600);
    expect(Number(t!.expires)).toBeLessThanOrEqual(after + 3600);

    const doc = await env.store.db.collection('connect_tokens').findOne({ _id: t!.id } as never);
    expect(doc).not.toBeNull();
    expect(JSON.stringify(doc)).not.toContain(t!.secret!);
    expect(JSON.stringify(doc)).not.toContain(t!.secret!.slice(4));
    expect(doc!.secretHash).toBe(createHash('sha256').update(t!.secret!).digest('hex'));
    expect(Object.keys(doc!).sort()).toEqual(['_id', 'createdAt', 'displayName', 'expiresAt', 'identifier', 'projectId', 'secretHash', 'status', 'type', 'updatedAt']);
    expect(doc).toMatchObject({ projectId: A, type: 'passkey-append', status: 'initial' });
  });

  it('gives every token its own secret and honours maxLifetimeInSeconds', async () => {
    const one = (await rpc.createConnectToken({ type: 'passkey-list', data: { identifier: 'ada@example.com' }, maxLifetimeInSeconds: 60 }, as(A))).connectToken!;
    const two = (await rpc.createConnectToken({ type: 'passkey-delete', data: { identifier: 'ada@example.com' }, maxLifetimeInSeconds: 86400 }, as(A))).connectToken!;
    expect(one.secret).not.toBe(two.secret);
    expect(one).toMatchObject({ tokenType: 'passkey-list', data: { identifier: 'ada@example.com' } });
    // The reference's list and delete data have no displayName, so none is set.
    expect(one.data?.displayName).toBeUndefined();
    expect(Number(one.expires) - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(60);
    expect(Number(two.expires) - Math.floor(Date.now() / 1000)).toBeGreaterThan(86400 - 10);
  });

  it('requires a display name for passkey-append and a non-blank identifier', async () => {
    expect(await rpcError(rpc.createConnectToken({ type: 'passkey-append', data: { identifier: 'ada@example.com' } }, as(A)))).toMatchObject({
      code: Code.InvalidArgument,
      type: 'validation_error',
      validation: ['data.displayName'],
    });
    expect(await rpcError(rpc.createConnectToken(appendReq('ada@example.com', '   '), as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['data.displayName'] });
    expect(await rpcError(rpc.createConnectToken({ type: 'passkey-list', data: { identifier: '   ' } }, as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['data.identifier'] });
  });

  it('refuses an identifier no flow could use (no email, E.164 phone number or username)', async () => {
    for (const identifier of ['Ada Lovelace', 'ada@', '+12', 'ädä']) {
      expect(await rpcError(rpc.createConnectToken({ type: 'passkey-list', data: { identifier } }, as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['data.identifier'] });
    }
    for (const identifier of ['Ada@Example.com', '+4915112345678', 'ada.lovelace']) {
      expect((await rpc.createConnectToken({ type: 'passkey-list', data: { identifier } }, as(A))).connectToken?.data?.identifier).toBe(identifier);
    }
  });

  it('rejects invalid requests through protovalidate', async () => {
    const bad = (req: Parameters<typeof rpc.createConnectToken>[0]) => rpcError(rpc.createConnectToken(req, as(A)));
    expect(await bad({ type: 'passkey-login', data: { identifier: 'ada@example.com' } })).toMatchObject({ code: Code.InvalidArgument, type: 'validation_error', validation: ['type'] });
    expect(await bad({ type: 'passkey-list' })).toMatchObject({ code: Code.InvalidArgument, validation: ['data'] });
    expect(await bad({ type: 'passkey-list', data: { identifier: '' } })).toMatchObject({ code: Code.InvalidArgument, validation: ['data.identifier'] });
    expect(await bad({ type: 'passkey-list', data: { identifier: 'a' }, maxLifetimeInSeconds: 0 })).toMatchObject({ code: Code.InvalidArgument, validation: ['maxLifetimeInSeconds'] });
    expect(await bad({ type: 'passkey-list', data: { identifier: 'a' }, maxLifetimeInSeconds: 86401 })).toMatchObject({ code: Code.InvalidArgument, validation: ['maxLifetimeInSeconds'] });
  });

  it('needs a project on the call', async () => {
    expect((await rpcError(rpc.createConnectToken(appendReq()))).code).toBe(Code.Unauthenticated);
  });
});

describe('ListConnectTokens', () => {
  let P: string;
  const ids: string[] = [];
  const start = new Date('2030-01-01T00:00:00Z');
  beforeAll(async () => {
    P = await newProject('Token listing');
    // Seven tokens one minute apart, lifetimes descending so expiry order differs from creation order.
    const types = ['passkey-append', 'passkey-delete', 'passkey-list'] as const;
    const { clock, deps } = clockAt(start);
    for (let i = 0; i < 7; i++) {
      const { record } = await create(deps, P, { type: types[i % 3], identifier: i < 4 ? 'ada@example.com' : 'bob@example.com', maxLifetimeInSeconds: 3600 - i * 120 });
      ids.push(record._id);
      clock.advance(60);
    }
    await rpc.updateConnectToken({ connectTokenId: ids[1], status: 'consumed' }, as(P));
  });

  const list = (filter: string[], sort = '', page?: number, pageSize?: number) => rpc.listConnectTokens({ filter, sort, page, pageSize }, as(P));

  it('pages in creation order without secrets', async () => {
    const first = await list([], '', 1, 5);
    expect(first.connectTokens.map((t) => t.id)).toEqual(ids.slice(0, 5));
    expect(first.paging).toMatchObject({ page: 1, totalPages: 2, totalItems: 7 });
    expect(first.connectTokens.every((t) => t.secret === undefined)).toBe(true);
    expect(Number(first.connectTokens[0].expires)).toBe(start.getTime() / 1000 + 3600);
    const second = await list([], '', 2, 5);
    expect(second.connectTokens.map((t) => t.id)).toEqual(ids.slice(5));
    const beyond = await list([], '', 3, 5);
    expect(beyond.connectTokens).toEqual([]);
    expect((await list([])).connectTokens).toHaveLength(7);
  });

  it('sorts by created or expires, either way', async () => {
    expect((await list([], 'created:desc', 1, 100)).connectTokens.map((t) => t.id)).toEqual([...ids].reverse());
    expect((await list([], 'created:asc', 1, 100)).connectTokens.map((t) => t.id)).toEqual(ids);
    // Token i expires at start + 60i + 3600 - 120i = start + 3600 - 60i: the newest expires first.
    expect((await list([], 'expires:asc', 1, 100)).connectTokens.map((t) => t.id)).toEqual([...ids].reverse());
    expect((await list([], 'expires:desc', 1, 3)).connectTokens.map((t) => t.id)).toEqual(ids.slice(0, 3));
  });

  it('filters by type, status and identifier, combined', async () => {
    expect((await list(['tokenType:eq:passkey-append'])).connectTokens.map((t) => t.id)).toEqual([ids[0], ids[3], ids[6]]);
    expect((await list(['connectTokenStatus:eq:consumed'])).connectTokens.map((t) => t.id)).toEqual([ids[1]]);
    expect((await list(['identifier:eq: bob@example.com '])).connectTokens.map((t) => t.id)).toEqual(ids.slice(4));
    const both = await list(['identifier:eq:ada@example.com', 'connectTokenStatus:eq:initial', 'tokenType:eq:passkey-delete']);
    expect(both.connectTokens.map((t) => t.id)).toEqual([]);
    expect(both.paging).toMatchObject({ page: 1, totalPages: 0, totalItems: 0 });
    expect((await list(['identifier:eq:ada@example.com', 'connectTokenStatus:eq:initial'])).paging?.totalItems).toBe(3);
  });

  it('lists expired tokens with their stored status (expires tells)', async () => {
    const { deps } = clockAt(new Date(Date.now() - 7200_000));
    const { record } = await create(deps, P, { identifier: 'expired@example.com', maxLifetimeInSeconds: 60 });
    const { connectTokens } = await list(['identifier:eq:expired@example.com']);
    expect(connectTokens).toHaveLength(1);
    expect(connectTokens[0]).toMatchObject({ id: record._id, connectTokenStatus: 'initial' });
    expect(Number(connectTokens[0].expires)).toBeLessThan(Date.now() / 1000);
    await rpc.deleteConnectToken({ connectTokenId: record._id }, as(P));
  });

  it('rejects unknown fields, operators, values and sorts naming the parameter', async () => {
    expect(await rpcError(list(['status:eq:initial']))).toMatchObject({ code: Code.InvalidArgument, type: 'validation_error', validation: ['filter'] });
    expect(await rpcError(list(['tokenType:like:passkey-list']))).toMatchObject({ code: Code.InvalidArgument, validation: ['filter'] });
    expect(await rpcError(list(['tokenType:eq:passkey-login']))).toMatchObject({ code: Code.InvalidArgument, validation: ['filter'] });
    expect(await rpcError(list(['connectTokenStatus:eq:expired']))).toMatchObject({ code: Code.InvalidArgument, validation: ['filter'] });
    expect(await rpcError(list(['tokenType']))).toMatchObject({ code: Code.InvalidArgument, validation: ['filter'] });
    expect(await rpcError(list([], 'identifier:asc'))).toMatchObject({ code: Code.InvalidArgument, validation: ['sort'] });
    expect(await rpcError(list([], 'created:up'))).toMatchObject({ code: Code.InvalidArgument, validation: ['sort'] });
    expect(await rpcError(list([], '', 1, 1000))).toMatchObject({ code: Code.InvalidArgument, validation: ['pageSize'] });
  });

  it('shows nothing of another project', async () => {
    const inA = await rpc.listConnectTokens({ filter: [], sort: '', pageSize: 100 }, as(A));
    expect(inA.connectTokens.map((t) => t.id).filter((id) => ids.includes(id))).toEqual([]);
  });
});

describe('UpdateConnectToken and DeleteConnectToken', () => {
  const statusOf = async (id: string) => (await env.deps.connectTokens.find(A, id))?.status;

  it('revoke with "consumed" (idempotent); "initial" is a no-op on an initial token and refused on a consumed one', async () => {
    const t = (await rpc.createConnectToken(appendReq(), as(A))).connectToken!;
    await expect(rpc.updateConnectToken({ connectTokenId: t.id, status: 'initial' }, as(A))).resolves.toBeDefined();
    expect(await statusOf(t.id)).toBe('initial');
    await expect(rpc.updateConnectToken({ connectTokenId: t.id, status: 'consumed' }, as(A))).resolves.toBeDefined();
    expect(await statusOf(t.id)).toBe('consumed');
    const consumedAt = (await env.deps.connectTokens.find(A, t.id))!.consumedAt;
    expect(consumedAt).toBeInstanceOf(Date);
    await expect(rpc.updateConnectToken({ connectTokenId: t.id, status: 'consumed' }, as(A))).resolves.toBeDefined();
    expect((await env.deps.connectTokens.find(A, t.id))!.consumedAt).toEqual(consumedAt);
    expect(await rpcError(rpc.updateConnectToken({ connectTokenId: t.id, status: 'initial' }, as(A)))).toMatchObject({
      code: Code.FailedPrecondition,
      type: 'connect_token_consumed',
    });
    expect(await statusOf(t.id)).toBe('consumed');
  });

  it('a revoke wins over a flow that consumed the token and then releases it', async () => {
    const { deps } = clockAt(new Date());
    const { record, secret } = await create(deps, A);
    await claimConnectToken(deps, { projectId: A, secret, type: 'passkey-append', processId: 'cpr-1' });
    await consumeConnectToken(deps, { projectId: A, tokenId: record._id, processId: 'cpr-1' });
    await rpc.updateConnectToken({ connectTokenId: record._id, status: 'consumed' }, as(A));
    await releaseConnectToken(deps, { projectId: A, tokenId: record._id, processId: 'cpr-1' });
    expect(await statusOf(record._id)).toBe('consumed');
    // Revoking a claimed (not yet consumed) token: the claiming flow can no longer consume it.
    const second = await create(deps, A);
    await claimConnectToken(deps, { projectId: A, secret: second.secret, type: 'passkey-append', processId: 'cpr-2' });
    await rpc.updateConnectToken({ connectTokenId: second.record._id, status: 'consumed' }, as(A));
    expect(await domainError(consumeConnectToken(deps, { projectId: A, tokenId: second.record._id, processId: 'cpr-2' }))).toMatchObject({ type: 'connect_token_consumed' });
  });

  it('delete once, then not_found', async () => {
    const t = (await rpc.createConnectToken(appendReq(), as(A))).connectToken!;
    await expect(rpc.deleteConnectToken({ connectTokenId: t.id }, as(A))).resolves.toMatchObject({ result: {} });
    expect(await env.deps.connectTokens.find(A, t.id)).toBeNull();
    expect(await rpcError(rpc.deleteConnectToken({ connectTokenId: t.id }, as(A)))).toMatchObject({ code: Code.NotFound, type: 'connect_token_not_found' });
    expect(await rpcError(rpc.updateConnectToken({ connectTokenId: t.id, status: 'consumed' }, as(A)))).toMatchObject({ code: Code.NotFound, type: 'connect_token_not_found' });
    expect(await rpcError(rpc.updateConnectToken({ connectTokenId: t.id, status: 'initial' }, as(A)))).toMatchObject({ code: Code.NotFound, type: 'connect_token_not_found' });
  });

  it('another project can neither change nor delete a token', async () => {
    const t = (await rpc.createConnectToken(appendReq(), as(A))).connectToken!;
    expect(await rpcError(rpc.updateConnectToken({ connectTokenId: t.id, status: 'consumed' }, as(B)))).toMatchObject({ code: Code.NotFound, type: 'connect_token_not_found' });
    expect(await rpcError(rpc.deleteConnectToken({ connectTokenId: t.id }, as(B)))).toMatchObject({ code: Code.NotFound, type: 'connect_token_not_found' });
    expect(await statusOf(t.id)).toBe('initial');
  });

  it('reject invalid IDs and statuses through protovalidate', async () => {
    expect(await rpcError(rpc.updateConnectToken({ connectTokenId: 'usr-1', status: 'consumed' }, as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['connectTokenID'] });
    expect(await rpcError(rpc.updateConnectToken({ connectTokenId: 'ctk-1', status: 'revoked' }, as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['status'] });
    expect(await rpcError(rpc.deleteConnectToken({ connectTokenId: 'ctk-' }, as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['connectTokenID'] });
  });
});

describe('claim, consume and release', () => {
  const use = (deps: ConnectTokenDeps, secret: string, processId = 'cpr-1', projectId = A, type: 'passkey-append' | 'passkey-delete' | 'passkey-list' = 'passkey-append') =>
    claimConnectToken(deps, { projectId, secret, type, processId });
  const consume = (deps: ConnectTokenDeps, tokenId: string, processId = 'cpr-1', projectId = A) => consumeConnectToken(deps, { projectId, tokenId, processId });

  it('claims for one process (again for the same one), consumes once, and refuses afterwards', async () => {
    const { deps } = clockAt(new Date());
    const { record, secret } = await create(deps, A);
    const claimed = await use(deps, secret);
    expect(claimed).toMatchObject({ _id: record._id, status: 'initial', processId: 'cpr-1' });
    // A retried start of the same process.
    await expect(use(deps, secret)).resolves.toMatchObject({ processId: 'cpr-1' });
    expect(await domainError(use(deps, secret, 'cpr-2'))).toMatchObject({ kind: 'permission_denied', type: 'connect_token_in_use' });
    expect(await domainError(consume(deps, record._id, 'cpr-2'))).toMatchObject({ kind: 'permission_denied', type: 'connect_token_in_use' });
    const consumed = await consume(deps, record._id);
    expect(consumed).toMatchObject({ status: 'consumed', processId: 'cpr-1', consumedAt: expect.any(Date) });
    expect(await domainError(consume(deps, record._id))).toMatchObject({ kind: 'failed_precondition', type: 'connect_token_consumed' });
    expect(await domainError(use(deps, secret))).toMatchObject({ kind: 'failed_precondition', type: 'connect_token_consumed' });
  });

  it('answers the same for an unknown secret, another project\'s token and another purpose', async () => {
    const { deps } = clockAt(new Date());
    const { secret } = await create(deps, A);
    const unknown = await domainError(use(deps, `ctk_${'x'.repeat(43)}`));
    const notOurs = await domainError(use(deps, 'not-a-token'));
    const otherProject = await domainError(use(deps, secret, 'cpr-1', B));
    const otherType = await domainError(use(deps, secret, 'cpr-1', A, 'passkey-delete'));
    for (const e of [unknown, notOurs, otherProject, otherType]) expect(e).toEqual({ kind: 'permission_denied', type: 'invalid_connect_token', message: unknown.message });
    // None of them claimed it.
    await expect(use(deps, secret, 'cpr-9')).resolves.toMatchObject({ processId: 'cpr-9' });
  });

  it('refuses an expired token, at claim and at consume', async () => {
    const { clock, deps } = clockAt(new Date());
    const { record, secret } = await create(deps, A, { maxLifetimeInSeconds: 60 });
    clock.advance(59);
    await use(deps, secret);
    clock.advance(1);
    expect(await domainError(consume(deps, record._id))).toMatchObject({ kind: 'failed_precondition', type: 'connect_token_expired' });
    expect(await domainError(use(deps, secret))).toMatchObject({ kind: 'failed_precondition', type: 'connect_token_expired' });
    expect((await env.deps.connectTokens.find(A, record._id))!.status).toBe('initial');
  });

  it('consume needs a claim by that process', async () => {
    const { deps } = clockAt(new Date());
    const { record } = await create(deps, A);
    expect(await domainError(consume(deps, record._id))).toMatchObject({ kind: 'permission_denied', type: 'connect_token_in_use' });
    expect(await domainError(consume(deps, 'ctk-1'))).toMatchObject({ kind: 'permission_denied', type: 'invalid_connect_token' });
    expect(await domainError(consume(deps, record._id, 'cpr-1', B))).toMatchObject({ type: 'invalid_connect_token' });
  });

  it('a token deleted after its claim cannot be consumed', async () => {
    const { deps } = clockAt(new Date());
    const { record, secret } = await create(deps, A);
    await use(deps, secret);
    await rpc.deleteConnectToken({ connectTokenId: record._id }, as(A));
    expect(await domainError(consume(deps, record._id))).toMatchObject({ type: 'invalid_connect_token' });
  });

  it('release gives a consumed token back to its process only', async () => {
    const { deps } = clockAt(new Date());
    const { record, secret } = await create(deps, A);
    await use(deps, secret);
    await consume(deps, record._id);
    // Another process or project cannot undo it.
    await releaseConnectToken(deps, { projectId: A, tokenId: record._id, processId: 'cpr-2' });
    await releaseConnectToken(deps, { projectId: B, tokenId: record._id, processId: 'cpr-1' });
    expect((await env.deps.connectTokens.find(A, record._id))!.status).toBe('consumed');
    await releaseConnectToken(deps, { projectId: A, tokenId: record._id, processId: 'cpr-1' });
    const released = await env.deps.connectTokens.find(A, record._id);
    expect(released).toMatchObject({ status: 'initial', processId: 'cpr-1' });
    expect(released!.consumedAt).toBeUndefined();
    // Still bound to its process, and usable once more.
    expect(await domainError(use(deps, secret, 'cpr-2'))).toMatchObject({ type: 'connect_token_in_use' });
    await expect(consume(deps, record._id)).resolves.toMatchObject({ status: 'consumed' });
  });

  it('release never throws', async () => {
    const failing = { ...env.deps.connectTokens, release: () => Promise.reject(new Error('store down')) } as ConnectTokenStore;
    await expect(releaseConnectToken({ connectTokens: failing, now: () => new Date() }, { projectId: A, tokenId: 'ctk-1', processId: 'cpr-1' })).resolves.toBeUndefined();
  });

  it('of concurrent consumes of one token exactly one wins', async () => {
    const { deps } = clockAt(new Date());
    const { record, secret } = await create(deps, A);
    await use(deps, secret);
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => consume(deps, record._id)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect((r.reason as DomainError).type).toBe('connect_token_consumed');
    }
  });

  it('of concurrent claims by different processes exactly one wins', async () => {
    const { deps } = clockAt(new Date());
    const { secret } = await create(deps, A);
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => use(deps, secret, `cpr-${i + 1}`)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect((r.reason as DomainError).type).toBe('connect_token_in_use');
    }
  });

  it('hashes secrets as hex SHA-256', () => {
    expect(hashConnectTokenSecret('ctk_abc')).toBe(createHash('sha256').update('ctk_abc').digest('hex'));
  });
});

describe('repeated use of a passkey-list token', () => {
  const listToken = (deps: ConnectTokenDeps, o: Partial<CreateConnectTokenInput> = {}) => create(deps, A, { type: 'passkey-list', displayName: undefined, ...o });
  const list = (deps: ConnectTokenDeps, secret: string, processId = 'cpr-1', projectId = A, type: 'passkey-append' | 'passkey-delete' | 'passkey-list' = 'passkey-list') =>
    useRepeatableConnectToken(deps, { projectId, secret, type, processId });

  it('the first use consumes it, the same process uses it again; another process is refused', async () => {
    const { deps } = clockAt(new Date());
    const { record, secret } = await listToken(deps);
    const first = await list(deps, secret);
    expect(first).toMatchObject({ first: true, token: { _id: record._id, status: 'consumed', processId: 'cpr-1' } });
    for (let i = 0; i < 3; i++) expect(await list(deps, secret)).toMatchObject({ first: false, token: { _id: record._id, status: 'consumed' } });
    expect(await domainError(list(deps, secret, 'cpr-2'))).toMatchObject({ kind: 'failed_precondition', type: 'connect_token_consumed' });
    // The consumption time is the first use's.
    expect((await env.deps.connectTokens.find(A, record._id))!.consumedAt).toEqual(first.token.consumedAt);
  });

  it('keeps the project, type and expiry checks for every use', async () => {
    const { clock, deps } = clockAt(new Date());
    const { secret } = await listToken(deps, { maxLifetimeInSeconds: 60 });
    expect(await domainError(list(deps, secret, 'cpr-1', B))).toMatchObject({ kind: 'permission_denied', type: 'invalid_connect_token' });
    await list(deps, secret);
    expect(await domainError(list(deps, secret, 'cpr-1', B))).toMatchObject({ kind: 'permission_denied', type: 'invalid_connect_token' });
    clock.advance(60);
    expect(await domainError(list(deps, secret))).toMatchObject({ kind: 'failed_precondition', type: 'connect_token_expired' });
  });

  it('ends with the application\'s revocation, and with its deletion', async () => {
    const { deps } = clockAt(new Date());
    const revoked = await listToken(deps);
    await list(deps, revoked.secret);
    await rpc.updateConnectToken({ connectTokenId: revoked.record._id, status: 'consumed' }, as(A));
    expect(await domainError(list(deps, revoked.secret))).toMatchObject({ kind: 'failed_precondition', type: 'connect_token_consumed' });

    const deleted = await listToken(deps);
    await list(deps, deleted.secret);
    await rpc.deleteConnectToken({ connectTokenId: deleted.record._id }, as(A));
    expect(await domainError(list(deps, deleted.secret))).toMatchObject({ kind: 'permission_denied', type: 'invalid_connect_token' });
  });

  it('concurrent first uses by one process all succeed, exactly one of them first', async () => {
    const { deps } = clockAt(new Date());
    const { secret } = await listToken(deps);
    const results = await Promise.all(Array.from({ length: 5 }, () => list(deps, secret)));
    expect(results.filter((r) => r.first)).toHaveLength(1);
  });

  it('single-use types are not repeatable: an append or delete token stays consumed', async () => {
    const { deps } = clockAt(new Date());
    const del = await create(deps, A, { type: 'passkey-delete' });
    await expect(list(deps, del.secret, 'cpr-1', A, 'passkey-delete')).rejects.toThrow(/single-use/);
    await claimConnectToken(deps, { projectId: A, secret: del.secret, type: 'passkey-delete', processId: 'cpr-1' });
    await consumeConnectToken(deps, { projectId: A, tokenId: del.record._id, processId: 'cpr-1' });
    expect(await domainError(claimConnectToken(deps, { projectId: A, secret: del.secret, type: 'passkey-delete', processId: 'cpr-1' }))).toMatchObject({ type: 'connect_token_consumed' });
  });
});
