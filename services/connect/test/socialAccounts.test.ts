/**
 * Social accounts (POST/GET /v2/users/{userID}/socialAccounts, GET /v2/socialAccounts) and the
 * project's CNAME (PUT /v2/projectConfig/cname) through the in-memory connect service.
 */
import { createClient, Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import { ProjectConfigService } from '../../../gen/passkeyauth/connect/v1/project_config_service_pb.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { summarizeProject } from '../src/projects/domain/listProjects.js';
import { checkCname } from '../src/projects/domain/updateCname.js';
import { MAX_SOCIAL_ACCOUNTS_PER_USER } from '../src/users/domain/createSocialAccount.js';
import { as, clients, inMemoryTransport, startTestEnv, type Clients, type TestEnv } from './support.js';

let env: TestEnv;
let rpc: Clients;
let config: ReturnType<typeof createClient<typeof ProjectConfigService>>;
let A: string;
let B: string;

beforeAll(async () => {
  env = await startTestEnv();
  const transport = inMemoryTransport(env.deps);
  rpc = clients(transport);
  config = createClient(ProjectConfigService, transport);
  A = (await createProject(env.deps, { name: 'Social A', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
  B = (await createProject(env.deps, { name: 'Social B', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
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

async function newUser(projectId: string) {
  const { user } = await rpc.users.createUser({ fullName: 'Grace Hopper', status: 'active' }, as(projectId));
  return user!.userId;
}

const account = (userId: string, over: Record<string, string> = {}) => ({
  userId,
  providerType: 'google',
  identifierValue: 'grace@example.com',
  foreignId: `g-${Math.random().toString(36).slice(2)}`,
  avatarUrl: 'https://lh3.example.com/a.png',
  fullName: 'Grace Hopper',
  ...over,
});

describe('social accounts', () => {
  it('are created with the reference fields and listed for the user and the project', async () => {
    const userId = await newUser(A);
    const { socialAccount } = await rpc.users.createSocialAccount(account(userId, { foreignId: '1234567890' }), as(A));
    expect(socialAccount).toMatchObject({ providerType: 'google', identifierValue: 'grace@example.com', userId, foreignId: '1234567890', avatarUrl: 'https://lh3.example.com/a.png', fullName: 'Grace Hopper' });
    expect(socialAccount!.socialAccountId).toMatch(/^soc-[0-9]{20}$/);
    const gh = (await rpc.users.createSocialAccount(account(userId, { providerType: 'github', foreignId: '42', avatarUrl: '', fullName: '' }), as(A))).socialAccount!;

    const mine = await rpc.users.listUserSocialAccounts({ userId, filter: [], sort: '' }, as(A));
    expect(mine.socialAccounts.map((a) => a.socialAccountId)).toEqual([socialAccount!.socialAccountId, gh.socialAccountId]);
    const sorted = await rpc.users.listUserSocialAccounts({ userId, filter: [], sort: 'providerType:asc' }, as(A));
    expect(sorted.socialAccounts.map((a) => a.providerType)).toEqual(['github', 'google']);
    const onlyGithub = await rpc.users.listUserSocialAccounts({ userId, filter: ['providerType:eq:github'], sort: '' }, as(A));
    expect(onlyGithub.socialAccounts).toEqual([gh]);

    const byForeign = await rpc.users.listSocialAccounts({ filter: ['providerType:eq:google', 'foreignID:eq:1234567890'], sort: '' }, as(A));
    expect(byForeign.socialAccounts).toEqual([socialAccount]);
    expect(byForeign.paging).toMatchObject({ page: 1, totalPages: 1, totalItems: 1 });
    const byUser = await rpc.users.listSocialAccounts({ filter: [`userID:eq:${userId.slice(4)}`], sort: 'created:desc', pageSize: 1, page: 2 }, as(A));
    expect(byUser.socialAccounts.map((a) => a.socialAccountId)).toEqual([socialAccount!.socialAccountId]);
    expect(byUser.paging).toMatchObject({ page: 2, totalPages: 2, totalItems: 2 });
  });

  it('are unique per project, provider and provider user ID (409), but not across projects or providers', async () => {
    const u1 = await newUser(A);
    const u2 = await newUser(A);
    await rpc.users.createSocialAccount(account(u1, { foreignId: 'dup-1' }), as(A));
    expect(await rpcError(rpc.users.createSocialAccount(account(u2, { foreignId: 'dup-1' }), as(A)))).toMatchObject({ code: Code.AlreadyExists, type: 'social_account_already_exists' });
    expect(await rpcError(rpc.users.createSocialAccount(account(u1, { foreignId: 'dup-1' }), as(A)))).toMatchObject({ code: Code.AlreadyExists });
    await rpc.users.createSocialAccount(account(u2, { foreignId: 'dup-1', providerType: 'microsoft' }), as(A));
    await rpc.users.createSocialAccount(account(await newUser(B), { foreignId: 'dup-1' }), as(B));
    expect((await rpc.users.listUserSocialAccounts({ userId: u2, filter: [], sort: '' }, as(A))).socialAccounts.map((a) => a.providerType)).toEqual(['microsoft']);
  });

  it('are bounded per user', async () => {
    const userId = await newUser(A);
    for (let i = 0; i < MAX_SOCIAL_ACCOUNTS_PER_USER; i++) await rpc.users.createSocialAccount(account(userId), as(A));
    expect(await rpcError(rpc.users.createSocialAccount(account(userId), as(A)))).toMatchObject({ code: Code.FailedPrecondition, type: 'social_account_limit_reached' });
    expect((await rpc.users.listUserSocialAccounts({ userId, filter: [], sort: '', pageSize: 100 }, as(A))).socialAccounts).toHaveLength(MAX_SOCIAL_ACCOUNTS_PER_USER);
  });

  it('refuse bad input with 400 naming the field, and write nothing', async () => {
    const userId = await newUser(A);
    expect(await rpcError(rpc.users.createSocialAccount(account(userId, { providerType: 'facebook' }), as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['providerType'] });
    expect(await rpcError(rpc.users.createSocialAccount(account(userId, { foreignId: '' }), as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['foreignID'] });
    expect(await rpcError(rpc.users.createSocialAccount(account(userId, { foreignId: '   ' }), as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['foreignID'] });
    expect(await rpcError(rpc.users.createSocialAccount(account(userId, { identifierValue: '' }), as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['identifierValue'] });
    expect(await rpcError(rpc.users.createSocialAccount(account(userId, { avatarUrl: 'javascript:alert(1)' }), as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['avatarURL'] });
    expect(await rpcError(rpc.users.createSocialAccount(account('bob'), as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['userID'] });
    expect(await rpcError(rpc.users.listSocialAccounts({ filter: ['providerType:eq:facebook'], sort: '' }, as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['filter'] });
    expect(await rpcError(rpc.users.listSocialAccounts({ filter: ['nope:eq:1'], sort: '' }, as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['filter'] });
    expect(await rpcError(rpc.users.listSocialAccounts({ filter: [], sort: 'fullName:asc' }, as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['sort'] });
    expect(await rpcError(rpc.users.listUserSocialAccounts({ userId, filter: ['userID:eq:1'], sort: '' }, as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['filter'] });
    expect(await rpcError(rpc.users.listSocialAccounts({ filter: [], sort: '', pageSize: 101 }, as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['pageSize'] });
    expect((await rpc.users.listUserSocialAccounts({ userId, filter: [], sort: '' }, as(A))).socialAccounts).toEqual([]);
  });

  it('of another project\'s user are not found (404), and that user\'s accounts stay invisible', async () => {
    const userOfA = await newUser(A);
    await rpc.users.createSocialAccount(account(userOfA, { foreignId: 'only-a' }), as(A));
    expect(await rpcError(rpc.users.createSocialAccount(account(userOfA), as(B)))).toMatchObject({ code: Code.NotFound, type: 'user_not_found' });
    expect(await rpcError(rpc.users.listUserSocialAccounts({ userId: userOfA, filter: [], sort: '' }, as(B)))).toMatchObject({ code: Code.NotFound, type: 'user_not_found' });
    expect((await rpc.users.listSocialAccounts({ filter: ['foreignID:eq:only-a'], sort: '' }, as(B))).socialAccounts).toEqual([]);
  });

  it('go with their user', async () => {
    const userId = await newUser(A);
    await rpc.users.createSocialAccount(account(userId, { foreignId: 'gone-with-user' }), as(A));
    await rpc.users.deleteUser({ userId }, as(A));
    expect((await rpc.users.listSocialAccounts({ filter: ['foreignID:eq:gone-with-user'], sort: '' }, as(A))).socialAccounts).toEqual([]);
  });
});

describe('project CNAME', () => {
  it('is stored lower-case on the project and changes nothing else', async () => {
    const before = (await env.deps.projects.find(A))!;
    await config.updateCname({ cname: 'Auth.Example.COM.' }, as(A));
    const after = (await env.deps.projects.find(A))!;
    expect(after.cname).toBe('auth.example.com');
    expect(after.frontendApiUrl).toBe(before.frontendApiUrl);
    expect((await env.deps.projects.find(B))!.cname).toBeUndefined();
    // Reported to the operator by `project list`.
    expect(summarizeProject(after).cname).toBe('auth.example.com');
    expect(summarizeProject((await env.deps.projects.find(B))!)).not.toHaveProperty('cname');
  });

  it('must be a DNS host name: 400 naming cname otherwise', async () => {
    for (const bad of ['https://auth.example.com', 'auth.example.com:443', 'auth.example.com/x', 'localhost', '-a.example.com', 'a..example.com', 'a_b.example.com', '192.168.0.1', ' auth.example.com', `${'a'.repeat(64)}.example.com`, `${'abc.'.repeat(64)}com`, '*.example.com']) {
      expect(await rpcError(config.updateCname({ cname: bad }, as(A))), bad).toMatchObject({ code: Code.InvalidArgument, type: 'validation_error', validation: ['cname'] });
    }
    expect(await rpcError(config.updateCname({ cname: '' }, as(A)))).toMatchObject({ code: Code.InvalidArgument, validation: ['cname'] });
    expect((await env.deps.projects.find(A))!.cname).toBe('auth.example.com');
  });

  it('accepts the host names DNS allows', () => {
    expect(checkCname('login.my-app.co.uk')).toBe('login.my-app.co.uk');
    expect(checkCname(`${'a'.repeat(63)}.example.com`)).toBe(`${'a'.repeat(63)}.example.com`);
    expect(checkCname('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
  });
});
