import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import type { Identifier } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { MAX_IDENTIFIERS_PER_TYPE } from '../src/users/domain/identifierLimits.js';
import { as, clients, inMemoryTransport, startTestEnv, type Clients, type TestEnv } from './support.js';

let env: TestEnv;
let rpc: Clients;
let A: string;
let B: string;

beforeAll(async () => {
  env = await startTestEnv();
  rpc = clients(inMemoryTransport(env.deps));
  A = (await createProject(env.deps, { name: 'Users A', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
  B = (await createProject(env.deps, { name: 'Users B', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
});
afterAll(() => env?.close());
beforeEach(() => {
  env.cleanup.calls = [];
  env.cleanup.failWith = null;
});

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

async function newUser(projectId: string, fullName = 'Ada Lovelace') {
  const { user } = await rpc.users.createUser({ fullName, status: 'active' }, as(projectId));
  return user!;
}

async function newIdentifier(projectId: string, userId: string, identifierType: string, identifierValue: string, status = 'primary'): Promise<Identifier> {
  const { identifier } = await rpc.users.createIdentifier({ userId, identifierType, identifierValue, status }, as(projectId));
  return identifier!;
}

describe('users', () => {
  it('are created and read back', async () => {
    const user = await newUser(A);
    expect(user.userId).toMatch(/^usr-[0-9]{20}$/);
    expect(user).toMatchObject({ fullName: 'Ada Lovelace', status: 'active' });
    expect(user.explicitWebauthnId).toBeUndefined();
    const { user: got } = await rpc.users.getUser({ userId: user.userId }, as(A));
    expect(got).toEqual(user);
    const { user: withHandle } = await rpc.users.createUser({ status: 'pending', explicitWebauthnId: 'handle-1' }, as(A));
    expect(withHandle).toMatchObject({ status: 'pending', explicitWebauthnId: 'handle-1' });
    expect(withHandle!.fullName).toBeUndefined();
  });

  it('need a project on the call', async () => {
    expect((await rpcError(rpc.users.createUser({ status: 'active' }))).code).toBe(Code.Unauthenticated);
  });

  it('reject invalid requests through protovalidate', async () => {
    expect(await rpcError(rpc.users.createUser({ status: 'happy' }, as(A)))).toMatchObject({ code: Code.InvalidArgument, type: 'validation_error', validation: ['status'] });
    expect(await rpcError(rpc.users.getUser({ userId: 'bob' }, as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['userID'] });
  });

  it('are not_found when unknown', async () => {
    expect(await rpcError(rpc.users.getUser({ userId: 'usr-1' }, as(A)))).toMatchObject({ code: Code.NotFound, type: 'user_not_found' });
    expect(await rpcError(rpc.users.deleteUser({ userId: 'usr-1' }, as(A)))).toMatchObject({ code: Code.NotFound, type: 'user_not_found' });
  });
});

describe('cross-project isolation', () => {
  it('project B cannot get, delete or extend A\'s users, nor see or change A\'s identifiers', async () => {
    const user = await newUser(A, 'Only A');
    const ide = await newIdentifier(A, user.userId, 'email', 'only-a@example.com');

    expect(await rpcError(rpc.users.getUser({ userId: user.userId }, as(B)))).toMatchObject({ code: Code.NotFound, type: 'user_not_found' });
    expect(await rpcError(rpc.users.deleteUser({ userId: user.userId }, as(B)))).toMatchObject({ code: Code.NotFound });
    expect(await rpcError(rpc.users.createIdentifier({ userId: user.userId, identifierType: 'email', identifierValue: 'x@example.com', status: 'primary' }, as(B)))).toMatchObject({
      code: Code.NotFound,
      type: 'user_not_found',
    });
    expect(await rpcError(rpc.users.updateIdentifier({ userId: user.userId, identifierId: ide.identifierId, status: 'verified' }, as(B)))).toMatchObject({
      code: Code.NotFound,
      type: 'identifier_not_found',
    });
    expect(await rpcError(rpc.users.deleteIdentifier({ userId: user.userId, identifierId: ide.identifierId }, as(B)))).toMatchObject({ code: Code.NotFound });

    const inB = await rpc.users.listIdentifiers({ filter: [`userID:eq:${user.userId}`], sort: '' }, as(B));
    expect(inB.identifiers).toEqual([]);
    const byValueInB = await rpc.users.listIdentifiers({ filter: ['identifierValue:eq:only-a@example.com'], sort: '' }, as(B));
    expect(byValueInB.identifiers).toEqual([]);
    const allInB = await rpc.users.listIdentifiers({ filter: [], sort: '', pageSize: 100 }, as(B));
    expect(allInB.identifiers.map((i) => i.identifierId)).not.toContain(ide.identifierId);

    // Still there for A.
    expect((await rpc.users.getUser({ userId: user.userId }, as(A))).user?.fullName).toBe('Only A');
    expect(env.cleanup.calls).toEqual([]);
  });

  it('the same identifier value may exist once in each project', async () => {
    const ua = await newUser(A);
    const ub = await newUser(B);
    await newIdentifier(A, ua.userId, 'email', 'shared@example.com');
    await expect(newIdentifier(B, ub.userId, 'email', 'shared@example.com')).resolves.toMatchObject({ value: 'shared@example.com', userId: ub.userId });
  });
});

describe('identifiers', () => {
  it('are normalized when stored', async () => {
    const user = await newUser(A);
    expect(await newIdentifier(A, user.userId, 'email', '  Grace@Example.COM ')).toMatchObject({ type: 'email', value: 'grace@example.com', status: 'primary', userId: user.userId });
    expect(await newIdentifier(A, user.userId, 'phone', '+1 (555) 010-9999', 'pending')).toMatchObject({ value: '+15550109999', status: 'pending' });
    expect(await newIdentifier(A, user.userId, 'username', 'Grace.H')).toMatchObject({ value: 'grace.h' });
  });

  it('reject invalid values with a field-level validation error', async () => {
    const user = await newUser(A);
    expect(await rpcError(newIdentifier(A, user.userId, 'email', 'not-an-email'))).toMatchObject({ code: Code.InvalidArgument, type: 'validation_error', validation: ['identifierValue'] });
    expect(await rpcError(newIdentifier(A, user.userId, 'phone', '0151 123'))).toMatchObject({ code: Code.InvalidArgument, validation: ['identifierValue'] });
  });

  it('are unique per project and type: a duplicate is already_exists, even written differently', async () => {
    const u1 = await newUser(A);
    const u2 = await newUser(A);
    await newIdentifier(A, u1.userId, 'email', 'dup@example.com');
    expect(await rpcError(newIdentifier(A, u2.userId, 'email', ' DUP@example.com'))).toMatchObject({ code: Code.AlreadyExists, type: 'identifier_already_exists' });
    expect(await rpcError(newIdentifier(A, u1.userId, 'email', 'dup@example.com'))).toMatchObject({ code: Code.AlreadyExists });
    // The same string as another type is a different identifier.
    await expect(newIdentifier(A, u2.userId, 'username', 'dup')).resolves.toBeDefined();
  });

  it('are limited per type as on /v2/me: one more is failed_precondition identifier_limit_reached, and writes nothing', async () => {
    const user = await newUser(A);
    for (let i = 0; i < MAX_IDENTIFIERS_PER_TYPE.email; i++) await newIdentifier(A, user.userId, 'email', `cap${i}@example.com`, 'verified');
    await newIdentifier(A, user.userId, 'username', 'capped');
    // Somebody else only asserted the value (as /v2/me adds one): the refused create displaces nobody.
    const asserter = await newUser(A);
    const now = new Date();
    await env.deps.identifiers.insert({ _id: 'ide-424242', projectId: A, userId: asserter.userId, type: 'email', value: 'cap-over@example.com', status: 'pending', source: 'self', claimed: false, createdAt: now, updatedAt: now });
    expect(await rpcError(newIdentifier(A, user.userId, 'email', 'cap-over@example.com'))).toMatchObject({ code: Code.FailedPrecondition, type: 'identifier_limit_reached' });
    expect(await env.deps.identifiers.listForUser(A, asserter.userId)).toMatchObject([{ value: 'cap-over@example.com', claimed: false }]);
    expect(await rpcError(newIdentifier(A, user.userId, 'username', 'second'))).toMatchObject({ code: Code.FailedPrecondition, type: 'identifier_limit_reached' });
    const held = await env.deps.identifiers.listForUser(A, user.userId);
    expect(held.map((i) => i.value).sort()).toEqual([...Array.from({ length: MAX_IDENTIFIERS_PER_TYPE.email }, (_, i) => `cap${i}@example.com`), 'capped'].sort());
    // The limit is per type: a phone still fits; after a delete, an email fits again.
    await expect(newIdentifier(A, user.userId, 'phone', '+15550107777')).resolves.toBeDefined();
    await rpc.users.deleteIdentifier({ userId: user.userId, identifierId: held.find((i) => i.value === 'cap0@example.com')!._id }, as(A));
    await expect(newIdentifier(A, user.userId, 'email', 'cap-over@example.com')).resolves.toMatchObject({ value: 'cap-over@example.com' });
  });

  it('admit no more than the limit from concurrent creates of different values (the loser removes its own record)', async () => {
    const user = await newUser(A);
    const results = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => newIdentifier(A, user.userId, 'username', `race${i}`)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(MAX_IDENTIFIERS_PER_TYPE.username);
    for (const r of results.filter((r) => r.status === 'rejected')) expect(ConnectError.from((r as PromiseRejectedResult).reason).code).toBe(Code.FailedPrecondition);
    expect((await env.deps.identifiers.listForUser(A, user.userId)).filter((i) => i.type === 'username')).toHaveLength(MAX_IDENTIFIERS_PER_TYPE.username);
  });

  it('admit only one of several concurrent creates of the same value', async () => {
    const u = await newUser(A);
    // Email: five fit under the per-type limit, so only the value's uniqueness decides.
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => newIdentifier(A, u.userId, 'email', 'racer@example.com')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) expect(ConnectError.from((r as PromiseRejectedResult).reason).code).toBe(Code.AlreadyExists);
  });

  it('change status and are deleted', async () => {
    const user = await newUser(A);
    const ide = await newIdentifier(A, user.userId, 'email', 'status@example.com', 'pending');
    const { identifier } = await rpc.users.updateIdentifier({ userId: user.userId, identifierId: ide.identifierId, status: 'verified' }, as(A));
    expect(identifier).toEqual({ ...ide, status: 'verified' });
    const other = await newUser(A);
    // The identifier exists, but not for that user.
    expect(await rpcError(rpc.users.deleteIdentifier({ userId: other.userId, identifierId: ide.identifierId }, as(A)))).toMatchObject({ code: Code.NotFound, type: 'identifier_not_found' });
    const del = await rpc.users.deleteIdentifier({ userId: user.userId, identifierId: ide.identifierId }, as(A));
    expect(del.result).toBeDefined();
    expect(await rpcError(rpc.users.deleteIdentifier({ userId: user.userId, identifierId: ide.identifierId }, as(A)))).toMatchObject({ code: Code.NotFound });
    // The value is free again.
    await expect(newIdentifier(A, other.userId, 'email', 'status@example.com')).resolves.toBeDefined();
  });
});

describe('DeleteUser', () => {
  it('removes the user and its identifiers, then asks the challenge service to drop its challenges', async () => {
    const user = await newUser(A);
    await newIdentifier(A, user.userId, 'email', 'gone@example.com');
    await newIdentifier(A, user.userId, 'username', 'gone');
    const res = await rpc.users.deleteUser({ userId: user.userId }, as(A));
    expect(res.result).toBeDefined();
    expect(await rpcError(rpc.users.getUser({ userId: user.userId }, as(A)))).toMatchObject({ code: Code.NotFound });
    const prefixless = user.userId.slice('usr-'.length);
    expect((await rpc.users.listIdentifiers({ filter: [`userID:eq:${prefixless}`], sort: '' }, as(A))).identifiers).toEqual([]);
    expect(await env.store.db.collection('identifiers').countDocuments({ userId: user.userId })).toBe(0);
    expect(env.cleanup.calls).toEqual([{ projectId: A, userId: user.userId }]);
  });

  it('still succeeds, with local data gone, when the challenge service fails', async () => {
    env.cleanup.failWith = new Error('challenge service unreachable');
    const user = await newUser(A);
    await newIdentifier(A, user.userId, 'email', 'orphan@example.com');
    await expect(rpc.users.deleteUser({ userId: user.userId }, as(A))).resolves.toBeDefined();
    expect(env.cleanup.calls).toHaveLength(1);
    expect(await env.store.db.collection('users').countDocuments({ _id: user.userId } as never)).toBe(0);
    expect(await env.store.db.collection('identifiers').countDocuments({ userId: user.userId })).toBe(0);
  });
});

describe('ListIdentifiers', () => {
  let P: string;
  const users: string[] = [];
  beforeAll(async () => {
    P = (await createProject(env.deps, { name: 'Listing', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
    for (let i = 0; i < 3; i++) users.push((await newUser(P, `User ${i}`)).userId);
    // 12 identifiers in creation order: for each of 4 rounds (email, username, email, phone: one
    // username each, the per-type limit), one per user.
    const kinds = ['email', 'username', 'email', 'phone'] as const;
    const valueOf = { email: (n: string) => `id${n}@example.com`, username: (n: string) => `name${n}`, phone: (n: string) => `+155501000${n}` };
    for (let round = 0; round < 4; round++) {
      for (let u = 0; u < 3; u++) {
        const n = round * 3 + u;
        const kind = kinds[round];
        await newIdentifier(P, users[u], kind, valueOf[kind](String(n).padStart(2, '0')), n % 3 === 0 ? 'verified' : 'pending');
        // Distinct creation times keep "creation order" unambiguous on stores with millisecond clocks.
        await new Promise((r) => setTimeout(r, 2));
      }
    }
  });

  const list = (filter: string[], sort = '', page?: number, pageSize?: number) => rpc.users.listIdentifiers({ filter, sort, page, pageSize }, as(P));

  it('pages in creation order by default (the SDK sends sort=)', async () => {
    const first = await list([]);
    expect(first.paging).toMatchObject({ page: 1, totalPages: 2, totalItems: 12 });
    expect(first.identifiers).toHaveLength(10);
    expect(first.identifiers[0].value).toBe('id00@example.com');
    const second = await list([], '', 2);
    expect(second.paging).toMatchObject({ page: 2, totalPages: 2, totalItems: 12 });
    expect(second.identifiers.map((i) => i.value)).toEqual(['+15550100010', '+15550100011']);
    const beyond = await list([], '', 5);
    expect(beyond.identifiers).toEqual([]);
    expect(beyond.paging).toMatchObject({ page: 5, totalPages: 2, totalItems: 12 });
    const small = await list([], '', 3, 5);
    expect(small.paging).toMatchObject({ page: 3, totalPages: 3, totalItems: 12 });
    expect(small.identifiers).toHaveLength(2);
  });

  it('sorts by a field either way', async () => {
    const asc = await list(['identifierType:eq:email'], 'identifierValue:asc', 1, 100);
    expect(asc.identifiers.map((i) => i.value)).toEqual(['id00@example.com', 'id01@example.com', 'id02@example.com', 'id06@example.com', 'id07@example.com', 'id08@example.com']);
    const desc = await list(['identifierType:eq:email'], 'identifierValue:desc', 1, 100);
    expect(desc.identifiers.map((i) => i.value)).toEqual(asc.identifiers.map((i) => i.value).reverse());
    const newest = await list([], 'created:desc', 1, 1);
    expect(newest.identifiers[0].value).toBe('+15550100011');
    const byStatus = await list([], 'status:desc', 1, 100);
    expect(byStatus.identifiers.slice(0, 4).every((i) => i.status === 'verified')).toBe(true);
  });

  it('filters by user with or without the usr- prefix', async () => {
    const withPrefix = await list([`userID:eq:${users[1]}`]);
    const withoutPrefix = await list([`userID:eq:${users[1].slice(4)}`]);
    expect(withPrefix.identifiers).toHaveLength(4);
    expect(withPrefix.identifiers.every((i) => i.userId === users[1])).toBe(true);
    expect(withoutPrefix.identifiers).toEqual(withPrefix.identifiers);
    expect(withoutPrefix.paging).toMatchObject({ page: 1, totalPages: 1, totalItems: 4 });
  });

  it('combines filters (value, type, user, status)', async () => {
    const byValue = await list(['identifierValue:eq: ID04@Example.com ', 'identifierType:eq:email']);
    expect(byValue.identifiers).toEqual([]);
    const byValue2 = await list(['identifierValue:eq: ID07@Example.com ', 'identifierType:eq:email']);
    expect(byValue2.identifiers.map((i) => [i.value, i.userId])).toEqual([['id07@example.com', users[1]]]);
    const userAndType = await list([`userID:eq:${users[0].slice(4)}`, 'identifierType:eq:username']);
    expect(userAndType.identifiers.map((i) => i.value)).toEqual(['name03']);
    const verified = await list(['status:eq:verified']);
    expect(verified.identifiers.map((i) => i.value)).toEqual(['id00@example.com', 'name03', 'id06@example.com', '+15550100009']);
    const none = await list(['identifierValue:eq:nobody@example.com']);
    expect(none.identifiers).toEqual([]);
    expect(none.paging).toMatchObject({ page: 1, totalPages: 0, totalItems: 0 });
  });

  it('rejects unknown fields, operators and sorts naming the parameter', async () => {
    expect(await rpcError(list(['name:eq:x']))).toMatchObject({ code: Code.InvalidArgument, type: 'validation_error', validation: ['filter'] });
    expect(await rpcError(list(['identifierValue:like:x']))).toMatchObject({ code: Code.InvalidArgument, validation: ['filter'] });
    expect(await rpcError(list([], 'fullName:asc'))).toMatchObject({ code: Code.InvalidArgument, validation: ['sort'] });
    expect(await rpcError(list([], '', 1, 1000))).toMatchObject({ code: Code.InvalidArgument, validation: ['pageSize'] });
  });
});
