import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../src/projects/domain/createProject.js';
import { getProject } from '../src/projects/domain/getProject.js';
import { listPublicJwks } from '../src/projects/domain/signingKeys.js';
import { issueClientKey } from '../src/projects/domain/issueClientKey.js';
import { signToken } from '../src/projects/domain/signToken.js';
import { startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv({ frontendApiUrl: 'https://{projectID}.auth.example.com/', backendApiUrl: 'https://api.example.com/' });
});
afterAll(() => env?.close());

describe('signToken', () => {
  it('signs ES256 JWTs that verify against the project JWKS, with kid, iss and aud', async () => {
    const { project } = await createProject(env.deps, { name: 'Signing', rpId: 'example.com', origins: ['https://app.example.com'] });
    expect(project.frontendApiUrl).toBe(`https://${project._id}.auth.example.com`);
    expect(project.backendApiUrl).toBe('https://api.example.com');

    const token = await signToken(env.deps, project._id, { sub: 'usr-1', name: 'Ada' }, { expiresIn: 300 });
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'ES256', kid: project.signingKeys[0].kid });

    const jwks = createLocalJWKSet({ keys: listPublicJwks(project) });
    const { payload } = await jwtVerify(token, jwks, { issuer: project.frontendApiUrl, audience: project._id, algorithms: ['ES256'] });
    expect(payload).toMatchObject({ sub: 'usr-1', name: 'Ada', iss: `https://${project._id}.auth.example.com`, aud: project._id });
    expect(payload.exp! - payload.iat!).toBe(300);
  });

  it('does not let claims override iss or aud', async () => {
    const { project } = await createProject(env.deps, { name: 'Override', rpId: 'example.com', origins: ['https://app.example.com'] });
    const token = await signToken(env.deps, project._id, { iss: 'https://evil.example', aud: 'pro-1' });
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: listPublicJwks(project) }));
    expect(payload.iss).toBe(project.frontendApiUrl);
    expect(payload.aud).toBe(project._id);
  });

  it('is not verifiable with another project\'s keys', async () => {
    const a = await createProject(env.deps, { name: 'A', rpId: 'example.com', origins: ['https://a.example.com'] });
    const b = await createProject(env.deps, { name: 'B', rpId: 'example.com', origins: ['https://b.example.com'] });
    const token = await signToken(env.deps, a.project._id, { sub: 'usr-1' });
    await expect(jwtVerify(token, createLocalJWKSet({ keys: listPublicJwks(b.project) }))).rejects.toThrow();
  });

  it('issues a non-expiring client key that can be issued again with the same jti', async () => {
    const created = await createProject(env.deps, { name: 'Client key', rpId: 'example.com', origins: ['https://app.example.com'] });
    const jwks = createLocalJWKSet({ keys: listPublicJwks(created.project) });
    const first = await jwtVerify(created.clientKey, jwks, { issuer: created.project.frontendApiUrl, audience: created.project._id });
    expect(first.payload).toMatchObject({ kind: 'client', sub: created.project._id, jti: created.project.clientKeyId });
    expect(first.payload.exp).toBeUndefined();
    const again = await jwtVerify(await issueClientKey(env.deps, created.project._id), jwks);
    expect(again.payload.jti).toBe(first.payload.jti);
  });

  it('stores the private key only sealed', async () => {
    const { project } = await createProject(env.deps, { name: 'Sealed', rpId: 'example.com', origins: ['https://app.example.com'] });
    const stored = await getProject(env.deps, project._id);
    const json = JSON.stringify(stored);
    expect(stored.signingKeys[0].publicJwk).toEqual({ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: stored.signingKeys[0].kid, alg: 'ES256', use: 'sig' });
    expect(json).not.toMatch(/"d":/);
  });

  it('refuses a project that does not exist', async () => {
    await expect(signToken(env.deps, 'pro-1', {})).rejects.toMatchObject({ kind: 'not_found', type: 'project_not_found' });
  });
});
