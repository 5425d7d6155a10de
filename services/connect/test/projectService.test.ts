import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import { DomainError } from '../../runtime/errors.js';
import { addOrigin } from '../src/projects/domain/origins.js';
import { createProject, type CreatedProject } from '../src/projects/domain/createProject.js';
import { listProjects } from '../src/projects/domain/listProjects.js';
import { MAX_API_SECRETS, rotateSecret } from '../src/projects/domain/rotateSecret.js';
import { as, clients, inMemoryTransport, startTestEnv, type Clients, type TestEnv } from './support.js';

let env: TestEnv;
let rpc: Clients;
let a: CreatedProject;
let b: CreatedProject;

beforeAll(async () => {
  env = await startTestEnv();
  rpc = clients(inMemoryTransport(env.deps));
  a = await createProject(env.deps, { name: 'Project A', rpId: 'localhost', origins: ['http://localhost:3000'] });
  b = await createProject(env.deps, { name: 'Project B', rpId: 'localhost', origins: ['http://localhost:4000'], environment: 'production', rpName: 'B RP' });
});
afterAll(() => env?.close());

async function rpcError(p: Promise<unknown>): Promise<{ code: Code; type: string; message: string }> {
  try {
    await p;
  } catch (err) {
    const ce = ConnectError.from(err);
    return { code: ce.code, type: ce.findDetails(ErrorInfoSchema)[0]?.type ?? '', message: ce.rawMessage };
  }
  throw new Error('expected the call to fail');
}

describe('createProject', () => {
  it('stores defaults and shows the secret once', async () => {
    expect(a.project._id).toMatch(/^pro-[0-9]{20}$/);
    expect(a.project).toMatchObject({ rpName: 'Project A', appName: 'Project A', environment: 'development', frontendApiUrl: 'http://localhost:8080', backendApiUrl: 'http://localhost:8081' });
    expect(b.project).toMatchObject({ rpName: 'B RP', environment: 'production' });
    const stored = await env.deps.projects.find(a.project._id);
    expect(JSON.stringify(stored)).not.toContain(a.apiSecret);
    expect(stored!.apiSecrets).toHaveLength(1);
  });

  it('rejects bad settings as validation errors', async () => {
    await expect(createProject(env.deps, { name: 'x', rpId: 'localhost', origins: [] })).rejects.toMatchObject({ kind: 'invalid_argument' });
    await expect(createProject(env.deps, { name: 'x', rpId: 'localhost', origins: ['http://localhost:3000/app'] })).rejects.toBeInstanceOf(DomainError);
    await expect(createProject(env.deps, { name: ' ', rpId: 'localhost', origins: ['http://localhost:3000'] })).rejects.toBeInstanceOf(DomainError);
    await expect(createProject(env.deps, { name: 'x', rpId: 'localhost', origins: ['http://localhost:3000'], environment: 'staging' })).rejects.toBeInstanceOf(DomainError);
  });

  it('lists projects without secrets, hashes or key material', async () => {
    const list = await listProjects(env.deps);
    const json = JSON.stringify(list);
    expect(list.map((p) => p.projectID)).toEqual(expect.arrayContaining([a.project._id, b.project._id]));
    expect(json).not.toContain(a.apiSecret);
    expect(json).not.toContain(a.project.apiSecrets[0].hash);
    expect(json).not.toMatch(/ciphertext|encryptedPrivateKey|apiSecrets|signingKeys/);
  });
});

describe('AuthenticateBackend', () => {
  it('accepts the right secret', async () => {
    const res = await rpc.projects.authenticateBackend({ projectId: a.project._id, apiSecret: a.apiSecret });
    expect(res.projectId).toBe(a.project._id);
  });

  it('refuses a wrong secret and an unknown project the same way', async () => {
    const wrong = await rpcError(rpc.projects.authenticateBackend({ projectId: a.project._id, apiSecret: b.apiSecret }));
    const unknown = await rpcError(rpc.projects.authenticateBackend({ projectId: 'pro-12345678901234567890', apiSecret: a.apiSecret }));
    expect(wrong).toEqual({ code: Code.Unauthenticated, type: 'invalid_credentials', message: 'the project ID or API secret is not valid' });
    expect(unknown).toEqual(wrong);
  });

  it('rejects malformed project IDs before looking anything up', async () => {
    expect((await rpcError(rpc.projects.authenticateBackend({ projectId: 'abc', apiSecret: a.apiSecret }))).code).toBe(Code.InvalidArgument);
  });
});

describe('rotateSecret', () => {
  it('keeps several secrets active until others are revoked', async () => {
    const p = await createProject(env.deps, { name: 'Rotating', rpId: 'localhost', origins: ['http://localhost:3000'] });
    const second = await rotateSecret(env.deps, p.project._id, { revokeOthers: false });
    const third = await rotateSecret(env.deps, p.project._id, { revokeOthers: false });
    expect(new Set([p.apiSecret, second.apiSecret, third.apiSecret]).size).toBe(3);
    for (const apiSecret of [p.apiSecret, second.apiSecret, third.apiSecret]) {
      expect((await rpc.projects.authenticateBackend({ projectId: p.project._id, apiSecret })).projectId).toBe(p.project._id);
    }
    const fourth = await rotateSecret(env.deps, p.project._id, { revokeOthers: true });
    for (const apiSecret of [p.apiSecret, second.apiSecret, third.apiSecret]) {
      expect((await rpcError(rpc.projects.authenticateBackend({ projectId: p.project._id, apiSecret }))).type).toBe('invalid_credentials');
    }
    expect((await rpc.projects.authenticateBackend({ projectId: p.project._id, apiSecret: fourth.apiSecret })).projectId).toBe(p.project._id);
  });

  it('stops at the limit of active secrets', async () => {
    const p = await createProject(env.deps, { name: 'Limit', rpId: 'localhost', origins: ['http://localhost:3000'] });
    for (let i = 1; i < MAX_API_SECRETS; i++) await rotateSecret(env.deps, p.project._id, { revokeOthers: false });
    await expect(rotateSecret(env.deps, p.project._id, { revokeOthers: false })).rejects.toMatchObject({ kind: 'failed_precondition', type: 'too_many_api_secrets' });
    await expect(rotateSecret(env.deps, p.project._id, { revokeOthers: true })).resolves.toMatchObject({ projectId: p.project._id });
  });

  it('reports an unknown project', async () => {
    await expect(rotateSecret(env.deps, 'pro-1', { revokeOthers: false })).rejects.toMatchObject({ kind: 'not_found', type: 'project_not_found' });
  });
});

describe('GetProjectPublicInfo, GetJwks, GetSessionConfig, IsOriginAllowed', () => {
  it('publishes the public facts of a project', async () => {
    const info = await rpc.projects.getProjectPublicInfo({ projectId: a.project._id });
    expect(info.projectId).toBe(a.project._id);
    expect(info.frontendApiUrl).toBe('http://localhost:8080');
    expect(info.origins).toEqual(['http://localhost:3000']);
    expect(info.keys).toHaveLength(1);
    expect(info.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: a.project.signingKeys[0].kid });
  });

  it('is not_found for an unknown project', async () => {
    expect(await rpcError(rpc.projects.getProjectPublicInfo({ projectId: 'pro-98765' }))).toMatchObject({ code: Code.NotFound, type: 'project_not_found' });
  });

  it('serves the JWKS of the project in the request context', async () => {
    const jwks = await rpc.projects.getJwks({}, as(b.project._id));
    expect(jwks.keys.map((k) => k.kid)).toEqual([b.project.signingKeys[0].kid]);
    expect((await rpcError(rpc.projects.getJwks({}))).code).toBe(Code.Unauthenticated);
    expect((await rpcError(rpc.projects.getJwks({}, as('pro-55555')))).code).toBe(Code.NotFound);
  });

  it('answers the session config', async () => {
    const cfg = await rpc.projects.getSessionConfig({}, as(a.project._id));
    expect(cfg).toMatchObject({ useSessionManagement: true, frontendApiUrl: 'http://localhost:8080' });
  });

  it('knows which origins some project allows', async () => {
    await addOrigin(env.deps, a.project._id, 'https://Shop.Example.com/');
    expect((await rpc.projects.isOriginAllowed({ origin: 'https://shop.example.com' })).allowed).toBe(true);
    expect((await rpc.projects.isOriginAllowed({ origin: 'http://localhost:4000' })).allowed).toBe(true);
    expect((await rpc.projects.isOriginAllowed({ origin: 'https://evil.example.com' })).allowed).toBe(false);
    expect((await rpc.projects.isOriginAllowed({ origin: 'null' })).allowed).toBe(false);
  });

  it('adds origins once', async () => {
    const p = await addOrigin(env.deps, b.project._id, 'http://localhost:5000');
    const again = await addOrigin(env.deps, b.project._id, 'http://localhost:5000/');
    expect(p.origins).toEqual(['http://localhost:4000', 'http://localhost:5000']);
    expect(again.origins).toEqual(p.origins);
    await expect(addOrigin(env.deps, 'pro-1', 'http://localhost:5000')).rejects.toMatchObject({ type: 'project_not_found' });
    await expect(addOrigin(env.deps, b.project._id, 'localhost:5000')).rejects.toMatchObject({ kind: 'invalid_argument' });
  });
});
