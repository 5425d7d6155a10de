/**
 * Backend API authentication: `Authorization: Basic base64(projectID:apiSecret)`, checked by the
 * connect service's ProjectService (an in-memory double here), verified pairs cached briefly.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BasicAuthenticator } from '../src/auth/basicAuth.js';
import { HttpError } from '../src/errorResponse.js';
import { basic, FakeProjectService } from './support.js';

const SECRET_A = 'corbado1_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const SECRET_B = 'corbado1_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

let fake: FakeProjectService;
let auth: BasicAuthenticator;

beforeEach(() => {
  fake = new FakeProjectService();
  fake.add({ projectId: 'pro-1', frontendApiUrl: 'https://pro-1.auth.example.com', origins: [], keys: [], apiSecret: SECRET_A, useSessionManagement: true });
  fake.add({ projectId: 'pro-2', frontendApiUrl: 'https://pro-2.auth.example.com', origins: [], keys: [], apiSecret: SECRET_B, useSessionManagement: true });
  auth = new BasicAuthenticator(fake.client());
});

afterEach(() => {
  vi.useRealTimers();
});

/** The HttpError an authentication attempt fails with (fails the test if it succeeds). */
async function rejection(header: string | undefined): Promise<HttpError> {
  try {
    await auth.authenticate(header, 'req-test');
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    return err as HttpError;
  }
  throw new Error(`expected ${header} to be rejected`);
}

const WWW_AUTHENTICATE = 'Basic realm="passkeyauth backend API", charset="UTF-8"';

describe('BasicAuthenticator', () => {
  it('returns the project of valid credentials and passes the request ID along', async () => {
    await expect(auth.authenticate(basic('pro-1', SECRET_A), 'req-42')).resolves.toBe('pro-1');
    expect(fake.count('authenticateBackend')).toBe(1);
    expect(fake.calls[0].request).toMatchObject({ projectId: 'pro-1', apiSecret: SECRET_A });
    expect(fake.calls[0].headers.get('x-request-id')).toBe('req-42');
  });

  it('accepts the scheme in any letter case and surrounding whitespace', async () => {
    const token = Buffer.from(`pro-1:${SECRET_A}`).toString('base64');
    await expect(auth.authenticate(`basic ${token}`, 'r')).resolves.toBe('pro-1');
    await expect(auth.authenticate(`  BASIC ${token}  `, 'r')).resolves.toBe('pro-1');
  });

  it('splits at the first colon: the secret may contain colons', async () => {
    fake.projects.get('pro-1')!.apiSecret = 'corbado1_with:colon:inside';
    await expect(auth.authenticate(basic('pro-1', 'corbado1_with:colon:inside'), 'r')).resolves.toBe('pro-1');
    expect(fake.calls[0].request).toMatchObject({ projectId: 'pro-1', apiSecret: 'corbado1_with:colon:inside' });
  });

  describe('malformed headers: 401 missing_credentials with a Basic challenge, no RPC', () => {
    for (const header of [undefined, '', 'Basic', 'Basic ', 'Bearer abc.def.ghi', 'Basic abc def', 'Basic ***', 'Digest username="pro-1"']) {
      it(JSON.stringify(header), async () => {
        const err = await rejection(header);
        expect(err.status).toBe(401);
        expect(err.body.type).toBe('missing_credentials');
        expect(err.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
        expect(fake.calls).toHaveLength(0);
      });
    }
  });

  describe('credentials of the wrong shape: 401 invalid_credentials, no RPC', () => {
    const cases: [string, string][] = [
      ['no colon', Buffer.from('pro-1').toString('base64')],
      ['empty project', Buffer.from(`:${SECRET_A}`).toString('base64')],
      ['empty secret', Buffer.from('pro-1:').toString('base64')],
      ['not a project ID', Buffer.from(`usr-1:${SECRET_A}`).toString('base64')],
      ['project ID with suffix', Buffer.from(`pro-1x:${SECRET_A}`).toString('base64')],
      ['project ID too long', Buffer.from(`pro-${'1'.repeat(31)}:${SECRET_A}`).toString('base64')],
      ['secret over 256 characters', Buffer.from(`pro-1:${'s'.repeat(257)}`).toString('base64')],
    ];
    for (const [name, token] of cases) {
      it(name, async () => {
        const err = await rejection(`Basic ${token}`);
        expect(err.status).toBe(401);
        expect(err.body.type).toBe('invalid_credentials');
        expect(err.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
        expect(fake.calls).toHaveLength(0);
      });
    }
  });

  it('a wrong secret is 401 invalid_credentials', async () => {
    const err = await rejection(basic('pro-1', 'corbado1_wrong'));
    expect(err.status).toBe(401);
    expect(err.body).toEqual({ type: 'invalid_credentials', details: 'the project ID or API secret is wrong' });
    expect(err.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
    expect(fake.count('authenticateBackend')).toBe(1);
  });

  it('wrong credentials are throttled per source: past the limit, 429 with Retry-After, without asking the connect service', async () => {
    auth = new BasicAuthenticator(fake.client(), { points: 3, durationSeconds: 60 });
    const attempt = (header: string, source: string) => auth.authenticate(header, 'req-test', source).then(
      () => 200,
      (err: HttpError) => err,
    );
    for (let i = 0; i < 3; i++) expect(((await attempt(basic('pro-1', `corbado1_guess${i}`), '198.51.100.7')) as HttpError).status).toBe(401);
    const asked = fake.count('authenticateBackend');
    const blocked = (await attempt(basic('pro-1', 'corbado1_guess9'), '198.51.100.7')) as HttpError;
    expect({ status: blocked.status, type: blocked.body.type }).toEqual({ status: 429, type: 'rate_limited' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // Malformed credentials count too, and even the right secret is not tried from a blocked source.
    expect(((await attempt(basic('pro-1', SECRET_A), '198.51.100.7')) as HttpError).status).toBe(429);
    expect(fake.count('authenticateBackend')).toBe(asked);
    // Another source is not affected.
    expect(await attempt(basic('pro-1', SECRET_A), '198.51.100.8')).toBe(200);
  });

  it('an unknown project is the same 401 invalid_credentials (no hint which part was wrong)', async () => {
    const unknown = await rejection(basic('pro-999', SECRET_A));
    const wrongSecret = await rejection(basic('pro-1', 'corbado1_wrong'));
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrongSecret.body);
  });

  it("project A's secret does not open project B, even after A authenticated", async () => {
    await expect(auth.authenticate(basic('pro-1', SECRET_A), 'r')).resolves.toBe('pro-1');
    const err = await rejection(basic('pro-2', SECRET_A));
    expect(err.status).toBe(401);
    expect(fake.count('authenticateBackend')).toBe(2);
  });

  it('an invalid_argument answer is a 401 too', async () => {
    fake.failWith = new ConnectError('bad request', Code.InvalidArgument);
    expect((await rejection(basic('pro-1', SECRET_A))).status).toBe(401);
  });

  it('an outage of the connect service is not reported as bad credentials', async () => {
    fake.failWith = new ConnectError('connect service down', Code.Unavailable);
    const err = await auth.authenticate(basic('pro-1', SECRET_A), 'r').catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(HttpError);
    expect(ConnectError.from(err).code).toBe(Code.Unavailable);
  });

  describe('caching', () => {
    it('a second call with the same credentials does not hit the RPC', async () => {
      await auth.authenticate(basic('pro-1', SECRET_A), 'r1');
      await expect(auth.authenticate(basic('pro-1', SECRET_A), 'r2')).resolves.toBe('pro-1');
      await expect(auth.authenticate(`basic ${Buffer.from(`pro-1:${SECRET_A}`).toString('base64')}`, 'r3')).resolves.toBe('pro-1');
      expect(fake.count('authenticateBackend')).toBe(1);
    });

    it('a cached pair does not let a different secret of the same project through', async () => {
      await auth.authenticate(basic('pro-1', SECRET_A), 'r1');
      expect((await rejection(basic('pro-1', `${SECRET_A}x`))).status).toBe(401);
      expect(fake.count('authenticateBackend')).toBe(2);
    });

    it('failures are not cached: a rejected pair is asked about again', async () => {
      await rejection(basic('pro-1', 'corbado1_wrong'));
      await rejection(basic('pro-1', 'corbado1_wrong'));
      expect(fake.count('authenticateBackend')).toBe(2);
    });

    it('a revoked secret stops working once the cache entry is older than 30 s', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
      await auth.authenticate(basic('pro-1', SECRET_A), 'r1');
      fake.projects.get('pro-1')!.apiSecret = 'corbado1_rotated';
      vi.setSystemTime(new Date('2030-01-01T00:00:29Z'));
      await expect(auth.authenticate(basic('pro-1', SECRET_A), 'r2')).resolves.toBe('pro-1');
      expect(fake.count('authenticateBackend')).toBe(1);
      vi.setSystemTime(new Date('2030-01-01T00:00:31Z'));
      expect((await rejection(basic('pro-1', SECRET_A))).status).toBe(401);
      expect(fake.count('authenticateBackend')).toBe(2);
    });
  });
});
