/**
 * The signed-in user's endpoints (/v2/me/*) end to end through the real gateway: a session token
 * from a connect login (append with a connect token, then F8/F9 with the software authenticator),
 * F3/F4 with the software authenticator, passkey list and delete, and F11 with the code read from
 * an SMTP server started here. Also every token that is not an active session's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { SoftAuthenticator, type SoftCredential } from '../kit/softAuthenticator.js';
import { TestSmtp, toOf } from '../../services/challenge/test/testSmtp.js';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';
const UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';

const smtp = new TestSmtp();
let stack: Stack;
let project: ProjectJson;

beforeAll(async () => {
  await smtp.start();
  stack = await startStack({ smtpUrl: smtp.url, emailFrom: 'Me E2E <no-reply@localhost>' });
  project = await stack.createProject('me-e2e', [ORIGIN], ['--app-name', 'Me Shop', '--challenge-delivery', 'service']);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await smtp.stop();
});

type Rsp = { status: number; body: Record<string, any> };

/** A frontend call as the web SDK makes it; `token` goes in Authorization: Bearer. */
async function front(method: string, path: string, o: { token?: string; process?: string; body?: unknown; authorization?: string } = {}): Promise<Rsp> {
  const headers: Record<string, string> = {
    'x-corbado-projectid': project.projectID,
    origin: ORIGIN,
    'user-agent': UA,
    ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
    ...(o.authorization ? { authorization: o.authorization } : {}),
    ...(o.process ? { 'x-corbado-process-id': o.process } : {}),
  };
  const res = await fetch(`${stack.frontendUrl}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

async function back(path: string, body?: unknown, method = 'POST'): Promise<Rsp> {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method,
    headers: { authorization: basic(project), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

function expectError(r: Rsp, status: number, type?: string) {
  expect({ status: r.status, type: type === undefined ? undefined : r.body.error?.type }).toEqual({ status, type });
  expect(r.body.httpStatusCode).toBe(status);
}

const capable = (extra: Record<string, unknown> = {}) => ({
  bluetoothAvailable: false,
  isUserVerifyingPlatformAuthenticatorAvailable: true,
  isConditionalMediationAvailable: true,
  clientCapabilities: { conditionalCreate: false, conditionalMediation: true, hybridTransport: true, passkeyPlatformAuthenticator: true, userVerifyingPlatformAuthenticator: true },
  webdriver: false,
  privateMode: false,
  ...extra,
});
const noPlatform = { isUserVerifyingPlatformAuthenticatorAvailable: false, isConditionalMediationAvailable: false, clientCapabilities: { hybridTransport: true } };
const platformAuthenticator = () => new SoftAuthenticator({ transports: ['internal'], flags: { be: true, bs: true } });

async function connectInit(flow: 'login' | 'append'): Promise<string> {
  const r = await front('POST', `/v2/connect/${flow}/init`, { body: { clientInformation: capable(), flags: {} } });
  expect(r.status).toBe(200);
  return (r.body.token ?? r.body.processID) as string;
}

interface SignedIn {
  userId: string;
  session: string;
  credential: SoftCredential;
}

/** A user created by a connect append for `identifier` (stored verified), signed in by a connect passkey login (F8/F9). */
async function signIn(identifier: string): Promise<SignedIn> {
  const append = await connectInit('append');
  const token = await back('/v2/connectTokens', { type: 'passkey-append', data: { identifier, displayName: 'Test User' } });
  expect(token.status).toBe(200);
  const start = await front('POST', '/v2/connect/append/start', { process: append, body: { appendTokenValue: token.body.secret, loadedMs: 120 } });
  expect(start.body.attestationOptions).not.toBe('');
  const { json, credential } = platformAuthenticator().createFromOptions(start.body.attestationOptions, ORIGIN);
  expect((await front('POST', '/v2/connect/append/finish', { process: append, body: { attestationResponse: JSON.stringify(json), completionType: 'manual' } })).status).toBe(200);

  const login = await connectInit('login');
  const ls = await front('POST', '/v2/connect/login/start', { process: login, body: { identifier, source: 'text-field', loadedMs: 300 } });
  const assertion = new SoftAuthenticator().getFromOptions(ls.body.assertionOptions, credential, ORIGIN);
  const lf = await front('POST', '/v2/connect/login/finish', { process: login, body: { isConditionalUI: false, assertionResponse: JSON.stringify(assertion), loadedMs: 900 } });
  expect(lf.status).toBe(200);
  const session = lf.body.session as string;
  return { userId: decodeJwt(session).sub!, session, credential };
}

/** Polls the SMTP server for the first mail to `address` and returns the 6-digit code in it. */
async function codeSentTo(address: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const mail = smtp.received.find((m) => toOf(m) === address);
    if (mail) {
      const code = /\b([0-9]{6})\b/.exec(mail.text ?? '')?.[1];
      expect(code, mail.text).toBeDefined();
      return code!;
    }
    if (Date.now() > deadline) throw new Error(`no email to ${address}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('/v2/me', () => {
  let ada: SignedIn;
  let workId: string;

  beforeAll(async () => {
    ada = await signIn('ada@example.com');
    const work = await back(`/v2/users/${ada.userId}/identifiers`, { identifierType: 'email', identifierValue: 'ada.work@example.com', status: 'pending' });
    expect(work.status).toBe(200);
    workId = work.body.identifierID;
  }, 60_000);

  it('returns the user with their identifiers', async () => {
    const r = await front('GET', '/v2/me', { token: ada.session });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: ada.userId,
      fullName: 'Test User',
      identifiers: [
        { id: expect.stringMatching(/^ide-[0-9]+$/), value: 'ada@example.com', type: 'email', status: 'verified' },
        { id: workId, value: 'ada.work@example.com', type: 'email', status: 'pending' },
      ],
      socialAccounts: [],
    });
  });

  it('shows the social accounts the application linked (frontend socialAccount shape)', async () => {
    const linked = await back(`/v2/users/${ada.userId}/socialAccounts`, { providerType: 'google', identifierValue: 'ada@example.com', foreignID: 'me-e2e-1', avatarURL: 'https://lh3.example.com/ada.png', fullName: 'Ada L.' });
    expect(linked.status).toBe(200);
    const r = await front('GET', '/v2/me', { token: ada.session });
    expect(r.body.socialAccounts).toEqual([{ providerType: 'google', identifierValue: 'ada@example.com', avatarUrl: 'https://lh3.example.com/ada.png', fullName: 'Ada L.' }]);
  });

  it('F3/F4: appends a passkey, lists it, and does not offer another one in the same client environment', async () => {
    const start = await front('POST', '/v2/me/passkeys/append/start', { token: ada.session, body: { clientInformation: capable() } });
    expect(start.status).toBe(200);
    expect(start.body.appendNotAllowedReason).toBeUndefined();
    const handle = start.body.newClientEnvHandle as string;
    expect(handle).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const options = JSON.parse(start.body.attestationOptions);
    expect(options.publicKey.user.name).toBe('ada@example.com');
    // The connect passkey is excluded, so an authenticator holding it would say so.
    expect(options.publicKey.excludeCredentials.map((c: { id: string }) => c.id)).toEqual([ada.credential.id]);

    const { json, credential } = platformAuthenticator().createFromOptions(start.body.attestationOptions, ORIGIN);
    const finish = await front('POST', '/v2/me/passkeys/append/finish', { token: ada.session, body: { attestationResponse: JSON.stringify(json), clientInformation: capable({ clientEnvHandle: handle }) } });
    expect(finish.status).toBe(200);
    expect(finish.body).toMatchObject({ httpStatusCode: 200, message: 'OK' });

    const list = await front('GET', '/v2/me/passkeys', { token: ada.session });
    expect(list.status).toBe(200);
    expect(list.body.paging).toEqual({ page: 1, totalPages: 1, totalItems: 2 });
    expect(list.body.passkeys.map((p: { credentialID: string }) => p.credentialID)).toEqual([ada.credential.id, credential.id]);
    expect(list.body.passkeys[1]).toMatchObject({ id: expect.stringMatching(/^cre-[0-9]+$/), status: 'active', transport: ['internal'], backupEligible: true, tags: [] });
    expect(list.body.passkeys[1].createdMs).toBeGreaterThan(Date.now() - 600_000);

    // The new passkey came from this environment: asking again here is refused (200, an indicator).
    const again = await front('POST', '/v2/me/passkeys/append/start', { token: ada.session, body: { clientInformation: capable({ clientEnvHandle: handle }) } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ attestationOptions: '', appendNotAllowedReason: 'passkey_already_exists' });
    // The finish of that refused start has nothing to finish.
    const stray = await front('POST', '/v2/me/passkeys/append/finish', { token: ada.session, body: { attestationResponse: JSON.stringify(json), clientInformation: capable({ clientEnvHandle: handle }) } });
    expectError(stray, 409, 'append_not_started');
  });

  it('F3: a client without platform authenticator is told passkeys_not_supported', async () => {
    const r = await front('POST', '/v2/me/passkeys/append/start', { token: ada.session, body: { clientInformation: noPlatform } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ attestationOptions: '', appendNotAllowedReason: 'passkeys_not_supported' });
    expect(r.body.newClientEnvHandle).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('F4 without F3 is 409; a malformed body is 400', async () => {
    const fresh = await signIn('f4-first@example.com');
    const r = await front('POST', '/v2/me/passkeys/append/finish', { token: fresh.session, body: { attestationResponse: '{}', clientInformation: capable() } });
    expectError(r, 409, 'append_not_started');
    expectError(await front('POST', '/v2/me/passkeys/append/start', { token: fresh.session, body: {} }), 400, 'validation_error');
  });

  it('deletes an own passkey; another user\'s is 404 and stays', async () => {
    const bob = await signIn('bob@example.com');
    const bobs = (await front('GET', '/v2/me/passkeys', { token: bob.session })).body.passkeys as Array<{ id: string }>;
    expect(bobs).toHaveLength(1);
    const theirs = await front('DELETE', `/v2/me/passkeys/${bobs[0]!.id}`, { token: ada.session });
    expectError(theirs, 404, 'credential_not_found');
    expect((await front('GET', '/v2/me/passkeys', { token: bob.session })).body.passkeys).toHaveLength(1);

    const own = (await front('GET', '/v2/me/passkeys', { token: ada.session })).body.passkeys as Array<{ id: string }>;
    const del = await front('DELETE', `/v2/me/passkeys/${own[0]!.id}`, { token: ada.session });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: own[0]!.id });
    const after = (await front('GET', '/v2/me/passkeys', { token: ada.session })).body;
    expect(after.passkeys.map((p: { id: string }) => p.id)).toEqual([own[1]!.id]);
    expect(after.paging.totalItems).toBe(1);
    expectError(await front('DELETE', `/v2/me/passkeys/${own[0]!.id}`, { token: ada.session }), 404, 'credential_not_found');
    expectError(await front('DELETE', '/v2/me/passkeys/not-a-passkey', { token: ada.session }), 400, 'validation_error');
  });

  it('F11: verifies an email address with the code from the email; a wrong code is 400', async () => {
    const start = await front('POST', '/v2/me/identifier/verify/start', { token: ada.session, body: { identifierID: workId, clientInformation: capable() } });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ httpStatusCode: 200, message: 'OK' });
    const code = await codeSentTo('ada.work@example.com');

    const wrong = await front('POST', '/v2/me/identifier/verify/finish', { token: ada.session, body: { identifierID: workId, code: code === '000000' ? '111111' : '000000' } });
    expectError(wrong, 400, 'challenge_value_invalid');
    expect(wrong.body.error.validation[0]).toMatchObject({ field: 'value', message: expect.stringContaining('attempt(s) left') });

    const ok = await front('POST', '/v2/me/identifier/verify/finish', { token: ada.session, body: { identifierID: workId, code } });
    expect(ok.status).toBe(200);
    const me = await front('GET', '/v2/me', { token: ada.session });
    expect(me.body.identifiers.find((i: { id: string }) => i.id === workId)).toMatchObject({ value: 'ada.work@example.com', status: 'verified' });
    // Verified now: nothing more to send.
    expectError(await front('POST', '/v2/me/identifier/verify/start', { token: ada.session, body: { identifierID: workId } }), 409, 'identifier_already_verified');
  });

  it("F11: another user's identifier is 404; a username is 400", async () => {
    const eve = await signIn('eve@example.com');
    const r = await front('POST', '/v2/me/identifier/verify/start', { token: eve.session, body: { identifierID: workId } });
    expectError(r, 404, 'identifier_not_found');
    expectError(await front('POST', '/v2/me/identifier/verify/finish', { token: eve.session, body: { identifierID: workId, code: '123456' } }), 404, 'identifier_not_found');
    const name = await back(`/v2/users/${eve.userId}/identifiers`, { identifierType: 'username', identifierValue: 'eve', status: 'pending' });
    expectError(await front('POST', '/v2/me/identifier/verify/start', { token: eve.session, body: { identifierID: name.body.identifierID } }), 400, 'validation_error');
  });

  it('refuses calls without a session token (none, a process token, garbage) and after logout', async () => {
    expectError(await front('GET', '/v2/me'), 401);
    const process = await connectInit('login');
    expectError(await front('GET', '/v2/me', { token: process }), 401);
    expectError(await front('GET', '/v2/me/passkeys', { process }), 401);
    expectError(await front('GET', '/v2/me', { token: 'garbage' }), 401);
    expectError(await front('GET', '/v2/me', { token: `${ada.session.slice(0, -4)}AAAA` }), 401);
    expectError(await front('POST', '/v2/me/passkeys/append/start', { authorization: 'Basic Zm9vOmJhcg==', body: { clientInformation: capable() } }), 401);

    const carol = await signIn('carol@example.com');
    expect((await front('GET', '/v2/me', { token: carol.session })).status).toBe(200);
    expect((await front('POST', '/v2/me/logout', { token: carol.session, body: {} })).status).toBe(204);
    expectError(await front('GET', '/v2/me', { token: carol.session }), 401, 'session_ended');
    expectError(await front('GET', '/v2/me/passkeys', { token: carol.session }), 401, 'session_ended');
  });
});
