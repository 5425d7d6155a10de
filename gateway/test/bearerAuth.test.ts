/**
 * Frontend API authentication: real ES256 tokens verified against the project's JWKS, fetched
 * through ProjectDirectory from an in-memory ProjectService; the web SDK's compatibility headers;
 * the project named by the host. Every failure is a 401 HttpError with an exact error type.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { SignJWT } from 'jose';
import type { IncomingHttpHeaders } from 'node:http';
import { createHmac } from 'node:crypto';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BearerAuthenticator, identityHeaders, projectFromHost } from '../src/auth/bearerAuth.js';
import { MAX_CACHED_PROJECTS, ProjectDirectory } from '../src/auth/projectDirectory.js';
import { HttpError } from '../src/errorResponse.js';
import type { TokenKind } from '../src/routeTable.js';
import { b64url, FakeProjectService, newSigningKey, signToken, type FakeProject, type SigningKey } from './support.js';

const URL_123 = 'https://pro-123.frontendapi.example.com';
const URL_456 = 'https://pro-456.frontendapi.example.com';

let keyA: SigningKey; // pro-123's key
let keyB: SigningKey; // pro-456's key
let keyC: SigningKey; // pro-123's next key (rotation)
let stranger: SigningKey; // nobody's key, same kid as keyA

beforeAll(async () => {
  [keyA, keyB, keyC, stranger] = await Promise.all([newSigningKey('key-a'), newSigningKey('key-b'), newSigningKey('key-c'), newSigningKey('key-a')]);
});

let fake: FakeProjectService;
let p123: FakeProject;
let directory: ProjectDirectory;
let bearer: BearerAuthenticator;

beforeEach(() => {
  fake = new FakeProjectService();
  p123 = fake.add({ projectId: 'pro-123', frontendApiUrl: URL_123, origins: ['https://app.example.com'], keys: [keyA.publicJwk], apiSecret: 'x', useSessionManagement: true });
  fake.add({ projectId: 'pro-456', frontendApiUrl: URL_456, origins: [], keys: [keyB.publicJwk], apiSecret: 'y', useSessionManagement: true });
  directory = new ProjectDirectory(fake.client());
  bearer = new BearerAuthenticator(directory);
});

afterEach(() => {
  vi.useRealTimers();
});

const token = (over: Partial<Parameters<typeof signToken>[0]> = {}) => signToken({ key: keyA, aud: 'pro-123', iss: URL_123, kind: 'client', ...over });

const ALL: TokenKind[] = ['client', 'process', 'session'];

/** The 401 an authentication fails with (fails the test otherwise). */
async function rejection(headers: IncomingHttpHeaders, accepted: TokenKind[] = ALL): Promise<HttpError> {
  try {
    await bearer.authenticate(headers, accepted, 'req-test');
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    const httpError = err as HttpError;
    expect(httpError.status).toBe(401);
    return httpError;
  }
  throw new Error('expected the authentication to fail');
}

const INVALID_TOKEN_CHALLENGE = 'Bearer realm="passkeyauth frontend API", error="invalid_token"';

describe('BearerAuthenticator: valid credentials', () => {
  it('accepts a client key in Authorization: Bearer', async () => {
    const principal = await bearer.authenticate({ authorization: `Bearer ${await token()}` }, ['client'], 'req-1');
    expect(principal.projectId).toBe('pro-123');
    expect(principal.kind).toBe('client');
    expect(principal.project.frontendApiUrl).toBe(URL_123);
    expect(principal.claims?.kind).toBe('client');
    expect(fake.calls[0].headers.get('x-request-id')).toBe('req-1');
  });

  it('accepts a session token with its subject and name', async () => {
    const t = await token({ kind: 'session', sub: 'usr-77', extra: { name: 'Ada Lovelace' } });
    const principal = await bearer.authenticate({ authorization: `bearer ${t}` }, ['session'], 'r');
    expect(principal).toMatchObject({ projectId: 'pro-123', kind: 'session', claims: { sub: 'usr-77', name: 'Ada Lovelace', iss: URL_123, aud: 'pro-123' } });
  });

  it('accepts an audience list whose first entry is the project', async () => {
    const principal = await bearer.authenticate({ authorization: `Bearer ${await token({ aud: ['pro-123', 'other'] })}` }, ['client'], 'r');
    expect(principal.projectId).toBe('pro-123');
  });

  it('accepts a process token in x-corbado-process-id', async () => {
    const t = await token({ kind: 'process', extra: { processID: 'proc-1' } });
    const principal = await bearer.authenticate({ 'x-corbado-process-id': t }, ['process'], 'r');
    expect(principal).toMatchObject({ projectId: 'pro-123', kind: 'process', claims: { processID: 'proc-1' } });
  });

  it("passes a process token's process and family on, from the verified claims only", async () => {
    const headersOf = async (extra: Record<string, unknown>) =>
      identityHeaders(await bearer.authenticate({ 'x-corbado-process-id': await token({ kind: 'process', sub: 'apr-12', extra }) }, ['process'], 'r'));
    expect(await headersOf({ family: 'connect' })).toEqual({ 'x-passkeyauth-token-kind': 'process', 'x-passkeyauth-process-id': 'apr-12', 'x-passkeyauth-process-family': 'connect' });
    // A token signed before the claim existed carries none; the connect service falls back to the ID.
    expect(await headersOf({})).toEqual({ 'x-passkeyauth-token-kind': 'process', 'x-passkeyauth-process-id': 'apr-12' });
    expect(await headersOf({ family: 'admin' })).not.toHaveProperty('x-passkeyauth-process-family');
    // Only process tokens name a process family.
    expect(identityHeaders(await bearer.authenticate({ authorization: `Bearer ${await token({ kind: 'session', sub: 'usr-1', extra: { family: 'auth' } })}` }, ['session'], 'r'))).not.toHaveProperty('x-passkeyauth-process-family');
  });

  it('accepts X-Corbado-ProjectID in place of a client key', async () => {
    const principal = await bearer.authenticate({ 'x-corbado-projectid': 'pro-123' }, ['client'], 'r');
    expect(principal).toMatchObject({ projectId: 'pro-123', kind: 'client' });
    expect(principal.claims).toBeUndefined();
    expect(principal.project.origins).toEqual(['https://app.example.com']);
  });

  it('accepts credentials that agree with the project in the host', async () => {
    await expect(bearer.authenticate({ host: 'pro-123.localhost:8080', 'x-corbado-projectid': 'pro-123' }, ['client'], 'r')).resolves.toMatchObject({ projectId: 'pro-123' });
    await expect(bearer.authenticate({ host: 'pro-123.auth.example.com', authorization: `Bearer ${await token()}` }, ['client'], 'r')).resolves.toMatchObject({
      projectId: 'pro-123',
    });
  });

  it('uses the bearer token before the compatibility headers', async () => {
    const session = await token({ kind: 'session' });
    const principal = await bearer.authenticate({ authorization: `Bearer ${session}`, 'x-corbado-projectid': 'pro-123' }, ['client', 'session'], 'r');
    expect(principal.kind).toBe('session');
    // A bad bearer token is not rescued by a valid X-Corbado-ProjectID.
    const err = await rejection({ authorization: 'Bearer nonsense', 'x-corbado-projectid': 'pro-123' }, ['client']);
    expect(err.body.type).toBe('invalid_token');
  });

  it('uses x-corbado-process-id before X-Corbado-ProjectID when both kinds are accepted', async () => {
    const principal = await bearer.authenticate({ 'x-corbado-process-id': await token({ kind: 'process' }), 'x-corbado-projectid': 'pro-123' }, ['client', 'process'], 'r');
    expect(principal.kind).toBe('process');
  });
});

describe('BearerAuthenticator: rejected credentials', () => {
  it('no credentials: missing_credentials with a plain Bearer challenge', async () => {
    const err = await rejection({});
    expect(err.body.type).toBe('missing_credentials');
    expect(err.headers['www-authenticate']).toBe('Bearer realm="passkeyauth frontend API"');
    // The host alone authenticates nothing.
    expect((await rejection({ host: 'pro-123.localhost' })).body.type).toBe('missing_credentials');
    // Another scheme is no bearer token.
    expect((await rejection({ authorization: 'Basic cHJvLTE6eA==' })).body.type).toBe('missing_credentials');
  });

  it('an expired token: token_expired', async () => {
    const now = Math.floor(Date.now() / 1000);
    const err = await rejection({ authorization: `Bearer ${await token({ iat: now - 3600, exp: now - 60 })}` });
    expect(err.body.type).toBe('token_expired');
    expect(err.headers['www-authenticate']).toBe(INVALID_TOKEN_CHALLENGE);
  });

  it('a token not yet valid (nbf in the future): invalid_token', async () => {
    const err = await rejection({ authorization: `Bearer ${await token({ extra: { nbf: Math.floor(Date.now() / 1000) + 600 } })}` });
    expect(err.body.type).toBe('invalid_token');
    expect(err.body.details).toContain('nbf');
  });

  it('a token signed by another key under the project kid: invalid_token', async () => {
    const err = await rejection({ authorization: `Bearer ${await token({ key: stranger })}` });
    expect(err.body).toEqual({ type: 'invalid_token', details: 'the token could not be verified' });
    expect(err.headers['www-authenticate']).toBe(INVALID_TOKEN_CHALLENGE);
  });

  it('a token signed by a key the project never published: invalid_token, one refresh at most', async () => {
    const err = await rejection({ authorization: `Bearer ${await token({ key: keyB })}` });
    expect(err.body.type).toBe('invalid_token');
    // The cached entry is moments old, so the refresh does not go to the connect service again.
    expect(fake.count('getProjectPublicInfo')).toBe(1);
  });

  it('a token without kid when the project has two keys: invalid_token', async () => {
    p123.keys = [keyA.publicJwk, keyC.publicJwk];
    expect((await rejection({ authorization: `Bearer ${await token({ kid: null })}` })).body.type).toBe('invalid_token');
  });

  it('a tampered payload: invalid_token', async () => {
    const [header, , signature] = (await token({ kind: 'client', sub: 'usr-1' })).split('.');
    const forged = `${header}.${b64url({ aud: 'pro-123', iss: URL_123, kind: 'session', sub: 'usr-2', exp: Math.floor(Date.now() / 1000) + 300 })}.${signature}`;
    const err = await rejection({ authorization: `Bearer ${forged}` });
    expect(err.body).toEqual({ type: 'invalid_token', details: 'the token could not be verified' });
  });

  it('a token for another (known) project: invalid_token', async () => {
    // Signed with pro-123's key, but claiming pro-456: pro-456's keys do not verify it.
    const err = await rejection({ authorization: `Bearer ${await token({ aud: 'pro-456', iss: URL_456 })}` });
    expect(err.body.type).toBe('invalid_token');
  });

  it('a token for an unknown project: invalid_token', async () => {
    const err = await rejection({ authorization: `Bearer ${await token({ aud: 'pro-999' })}` });
    expect(err.body).toEqual({ type: 'invalid_token', details: 'the token belongs to no known project' });
  });

  it('a token whose audience is no project ID, or that has none: invalid_token', async () => {
    for (const aud of ['https://pro-123.frontendapi.example.com', 'pro-abc', undefined]) {
      const err = await rejection({ authorization: `Bearer ${await token({ aud })}` });
      expect(err.body, String(aud)).toEqual({ type: 'invalid_token', details: 'the token names no project' });
    }
    expect(fake.count('getProjectPublicInfo')).toBe(0);
  });

  it('a wrong or missing issuer: invalid_token naming the iss claim', async () => {
    for (const iss of [URL_456, 'https://evil.example.com', undefined]) {
      const err = await rejection({ authorization: `Bearer ${await token({ iss })}` });
      expect(err.body, String(iss)).toEqual({ type: 'invalid_token', details: "the token's iss claim is not valid here" });
    }
  });

  it('a token kind the endpoint does not accept: wrong_token_kind', async () => {
    const err = await rejection({ authorization: `Bearer ${await token({ kind: 'session' })}` }, ['client', 'process']);
    expect(err.body).toEqual({ type: 'wrong_token_kind', details: 'this endpoint accepts client or process tokens, not session tokens' });
    expect(err.headers['www-authenticate']).toBe(INVALID_TOKEN_CHALLENGE);
    expect((await rejection({ authorization: `Bearer ${await token({ kind: 'client' })}` }, ['session'])).body.type).toBe('wrong_token_kind');
    expect((await rejection({ authorization: `Bearer ${await token({ kind: 'admin' })}` })).body.type).toBe('wrong_token_kind');
  });

  it('a token without a kind claim: wrong_token_kind', async () => {
    expect((await rejection({ authorization: `Bearer ${await token({ kind: undefined })}` })).body.type).toBe('wrong_token_kind');
  });

  it('a session token in x-corbado-process-id: wrong_token_kind', async () => {
    const err = await rejection({ 'x-corbado-process-id': await token({ kind: 'session' }) }, ['process', 'session']);
    expect(err.body.type).toBe('wrong_token_kind');
  });

  it('alg "none": invalid_token', async () => {
    const payload = { aud: 'pro-123', iss: URL_123, kind: 'session', sub: 'usr-1', exp: Math.floor(Date.now() / 1000) + 300 };
    for (const unsigned of [`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(payload)}.`, `${b64url({ alg: 'none', kid: 'key-a' })}.${b64url(payload)}.`]) {
      const err = await rejection({ authorization: `Bearer ${unsigned}` });
      expect(err.body.type).toBe('invalid_token');
    }
  });

  it('HS256 keyed with the public key (algorithm confusion): invalid_token', async () => {
    const payload = { aud: 'pro-123', iss: URL_123, kind: 'session', sub: 'usr-1', exp: Math.floor(Date.now() / 1000) + 300 };
    const signingInput = `${b64url({ alg: 'HS256', kid: 'key-a' })}.${b64url(payload)}`;
    const mac = createHmac('sha256', JSON.stringify(keyA.publicJwk)).update(signingInput).digest('base64url');
    expect((await rejection({ authorization: `Bearer ${signingInput}.${mac}` })).body.type).toBe('invalid_token');
    // Also a properly made HS256 token with a guessed secret.
    const hs = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', kid: 'key-a' }).sign(new TextEncoder().encode(keyA.publicJwk.x));
    expect((await rejection({ authorization: `Bearer ${hs}` })).body.type).toBe('invalid_token');
  });

  it('something that is no JWT: invalid_token', async () => {
    for (const t of ['abc', 'a.b.c', `${b64url('{')}.${b64url('{}')}.x`]) {
      const err = await rejection({ authorization: `Bearer ${t}` });
      expect(err.body.type, t).toBe('invalid_token');
    }
  });

  it('a token of another project than the host names: project_mismatch, before any lookup', async () => {
    const err = await rejection({ host: 'pro-456.auth.example.com', authorization: `Bearer ${await token()}` });
    expect(err.body.type).toBe('project_mismatch');
    expect(fake.calls).toHaveLength(0);
  });

  it('X-Corbado-ProjectID problems: invalid_project or project_mismatch', async () => {
    expect((await rejection({ 'x-corbado-projectid': 'project-123' }, ['client'])).body).toEqual({
      type: 'invalid_project',
      details: 'X-Corbado-ProjectID is not a project ID',
    });
    expect((await rejection({ 'x-corbado-projectid': 'pro-999' }, ['client'])).body).toEqual({ type: 'invalid_project', details: 'unknown project' });
    expect((await rejection({ host: 'pro-456.localhost', 'x-corbado-projectid': 'pro-123' }, ['client'])).body.type).toBe('project_mismatch');
  });

  it('X-Corbado-ProjectID does not count where client keys are not accepted', async () => {
    expect((await rejection({ 'x-corbado-projectid': 'pro-123' }, ['session'])).body.type).toBe('missing_credentials');
  });

  it('x-corbado-process-id does not count where process tokens are not accepted', async () => {
    const err = await rejection({ 'x-corbado-process-id': await token({ kind: 'process' }) }, ['session']);
    expect(err.body.type).toBe('missing_credentials');
  });

  it('an outage of the connect service is no 401', async () => {
    fake.failWith = new ConnectError('down', Code.Unavailable);
    const err = await bearer.authenticate({ authorization: `Bearer ${await token()}` }, ALL, 'r').catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(HttpError);
    expect(ConnectError.from(err).code).toBe(Code.Unavailable);
  });
});

describe('projectFromHost', () => {
  it('takes a project ID from the first label of a multi-label host', () => {
    expect(projectFromHost('pro-123.auth.example.com')).toBe('pro-123');
    expect(projectFromHost('pro-123.localhost')).toBe('pro-123');
    expect(projectFromHost('pro-123.localhost:8080')).toBe('pro-123');
  });
  it('ignores hosts that name no project', () => {
    for (const host of [undefined, '', 'localhost', 'pro-123', 'auth.example.com', 'www.pro-123.example.com', 'pro-abc.example.com', 'PRO-123.example.com', '127.0.0.1:8080']) {
      expect(projectFromHost(host), String(host)).toBeUndefined();
    }
  });
});

describe('key rotation and ProjectDirectory caching', () => {
  const T0 = new Date('2030-01-01T00:00:00Z').getTime();

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
  });

  it('refetches the keys for an unknown kid, but not within 10 s of the last fetch', async () => {
    await bearer.authenticate({ authorization: `Bearer ${await token()}` }, ['client'], 'r');
    expect(fake.count('getProjectPublicInfo')).toBe(1);
    p123.keys = [keyA.publicJwk, keyC.publicJwk];

    vi.setSystemTime(T0 + 5_000);
    const early = await rejection({ authorization: `Bearer ${await token({ key: keyC })}` });
    expect(early.body.type).toBe('invalid_token');
    expect(fake.count('getProjectPublicInfo')).toBe(1);

    vi.setSystemTime(T0 + 11_000);
    const principal = await bearer.authenticate({ authorization: `Bearer ${await token({ key: keyC })}` }, ['client'], 'r');
    expect(principal.projectId).toBe('pro-123');
    expect(fake.count('getProjectPublicInfo')).toBe(2);

    // The refreshed keys are cached: the old key and the new one verify without another fetch.
    await bearer.authenticate({ authorization: `Bearer ${await token({ key: keyA })}` }, ['client'], 'r');
    await bearer.authenticate({ authorization: `Bearer ${await token({ key: keyC })}` }, ['client'], 'r');
    expect(fake.count('getProjectPublicInfo')).toBe(2);
  });

  it('a retired key stops verifying once the cache expires (60 s)', async () => {
    await bearer.authenticate({ authorization: `Bearer ${await token()}` }, ['client'], 'r');
    p123.keys = [keyC.publicJwk];
    vi.setSystemTime(T0 + 30_000);
    await expect(bearer.authenticate({ authorization: `Bearer ${await token()}` }, ['client'], 'r')).resolves.toMatchObject({ projectId: 'pro-123' });
    vi.setSystemTime(T0 + 61_000);
    expect((await rejection({ authorization: `Bearer ${await token()}` })).body.type).toBe('invalid_token');
    expect(fake.count('getProjectPublicInfo')).toBe(2);
  });

  it('ProjectDirectory caches a project for 60 s and passes the request ID', async () => {
    const info = await directory.get('pro-123', 'req-a');
    expect(info).toMatchObject({ projectId: 'pro-123', frontendApiUrl: URL_123, origins: ['https://app.example.com'] });
    expect(info?.keys).toHaveLength(1);
    expect(info?.keys[0]).toMatchObject(keyA.publicJwk);
    expect(fake.calls[0].headers.get('x-request-id')).toBe('req-a');
    vi.setSystemTime(T0 + 59_000);
    await directory.get('pro-123', 'req-b');
    expect(fake.count('getProjectPublicInfo')).toBe(1);
    vi.setSystemTime(T0 + 60_000);
    await directory.get('pro-123', 'req-c');
    expect(fake.count('getProjectPublicInfo')).toBe(2);
  });

  it('ProjectDirectory remembers that a project does not exist', async () => {
    expect(await directory.get('pro-999', 'r')).toBeNull();
    expect(await directory.get('pro-999', 'r')).toBeNull();
    expect(fake.count('getProjectPublicInfo')).toBe(1);
    // A project created meanwhile shows up after the TTL.
    fake.add({ projectId: 'pro-999', frontendApiUrl: 'https://x', origins: [], keys: [], apiSecret: 'z', useSessionManagement: false });
    vi.setSystemTime(T0 + 61_000);
    expect((await directory.get('pro-999', 'r'))?.projectId).toBe('pro-999');
  });

  it('ProjectDirectory.refresh fetches only outside the cooldown', async () => {
    await directory.get('pro-123', 'r');
    await directory.refresh('pro-123', 'r');
    expect(fake.count('getProjectPublicInfo')).toBe(1);
    vi.setSystemTime(T0 + 10_000);
    await directory.refresh('pro-123', 'r');
    expect(fake.count('getProjectPublicInfo')).toBe(2);
    // Never fetched before: a refresh fetches.
    await directory.refresh('pro-456', 'r');
    expect(fake.count('getProjectPublicInfo')).toBe(3);
  });

  it('ProjectDirectory does not cache failures other than not-found', async () => {
    fake.failWith = new ConnectError('down', Code.Unavailable);
    await expect(directory.get('pro-123', 'r')).rejects.toMatchObject({ code: Code.Unavailable });
    fake.failWith = null;
    expect((await directory.get('pro-123', 'r'))?.projectId).toBe('pro-123');
    expect(fake.count('getProjectPublicInfo')).toBe(2);
  });
});

describe('ProjectDirectory memory bound', () => {
  it('does not remember more projects than MAX_CACHED_PROJECTS, however many IDs callers make up', async () => {
    // Unauthenticated callers pick the IDs (X-Corbado-ProjectID, host, aud): unknown ones must not pile up.
    let calls = 0;
    const notFound = {
      getProjectPublicInfo: async () => {
        calls++;
        throw new ConnectError('project not found', Code.NotFound);
      },
    } as unknown as ConstructorParameters<typeof ProjectDirectory>[0];
    const dir = new ProjectDirectory(notFound);
    for (let i = 0; i <= MAX_CACHED_PROJECTS; i++) expect(await dir.get(`pro-${1_000_000 + i}`, 'r')).toBeNull();
    expect(calls).toBe(MAX_CACHED_PROJECTS + 1);
    const size = (dir as unknown as { cache: Map<string, unknown> }).cache.size;
    expect(size).toBeLessThanOrEqual(MAX_CACHED_PROJECTS);
  });
});
