/**
 * The demo app's server (examples/demo) against a real stack: its pages and assets, the
 * password login of the connect page, connect tokens created with the project's API secret,
 * `/api/session` and `/api/connect/verify` (tokens verified against the JWKS, bad ones refused),
 * and the backend-API ceremonies it runs (B2–B7) with the software authenticator as the browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../kit/softAuthenticator.js';
import { startDemo, type DemoServer } from '@passkeyauth/demo';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';
const capable = { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true, clientCapabilities: { userVerifyingPlatformAuthenticator: true, conditionalMediation: true } };

let stack: Stack;
/** The demo's connect project (self-service off): the connect and backend pages. */
let project: ProjectJson;
/** The demo's self-service project: the sign-up, account and web-js pages. */
let selfService: ProjectJson;
let other: ProjectJson;
let demo: DemoServer;

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('demo-server-e2e', [ORIGIN]);
  selfService = await stack.createProject('demo-server-e2e-self-service', [ORIGIN], ['--self-service', 'enabled']);
  other = await stack.createProject('demo-server-e2e-other', [ORIGIN]);
  const demoProject = ({ projectID, apiSecret, frontendApiUrl, backendApiUrl }: ProjectJson) => ({ projectID, apiSecret, frontendApiUrl, backendApiUrl });
  demo = await startDemo({ port: 0, project: demoProject(selfService), connectProject: demoProject(project), mailInboxUrl: 'http://127.0.0.1:1080', webSdkUrlSuffix: 'localhost:8443' });
}, 120_000);
afterAll(async () => {
  await demo?.close();
  await stack?.stop();
});

type Rsp = { status: number; body: Record<string, any>; cookie: string | null };

/** A call to the demo server, as its pages make them (JSON, the session cookie when given). */
async function api(path: string, o: { body?: unknown; cookie?: string | null; bearer?: string } = {}): Promise<Rsp> {
  const headers: Record<string, string> = {};
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  if (o.cookie) headers.cookie = o.cookie;
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  const res = await fetch(`${demo.url}${path}`, { method: o.body === undefined ? 'GET' : 'POST', headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const setCookie = res.headers.get('set-cookie');
  return { status: res.status, body: (await res.json()) as Record<string, any>, cookie: setCookie ? setCookie.split(';')[0]! : (o.cookie ?? null) };
}

/** A frontend API call as the demo's pages make it. */
async function front(path: string, body: unknown, o: { process?: string; as?: ProjectJson } = {}): Promise<Record<string, any>> {
  const res = await fetch(`${stack.frontendUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-corbado-projectid': (o.as ?? project).projectID, origin: ORIGIN, ...(o.process ? { 'x-corbado-process-id': o.process } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, any>;
  expect(res.status, `${path}: ${JSON.stringify(json)}`).toBe(200);
  return json;
}

/** Registers an app user by password and returns its cookie. */
async function appUser(email: string): Promise<string> {
  const r = await api('/api/password/register', { body: { email, password: 'pw' } });
  expect(r.status).toBe(200);
  return r.cookie!;
}

/** Appends a passkey with a connect token from the demo server, then logs in with it (connect flows). */
async function connectLogin(email: string, cookie: string): Promise<{ signedPasskeyData: string; session: string }> {
  const token = await api('/api/connect-token', { body: { type: 'passkey-append' }, cookie });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  const append = await front('/v2/connect/append/init', { clientInformation: capable, flags: {} });
  const start = await front('/v2/connect/append/start', { appendTokenValue: token.body.secret, loadedMs: 10, forcePasskeyAppend: true }, { process: append.processID });
  const auth = new SoftAuthenticator({ transports: ['internal'] });
  const { json, credential } = auth.createFromOptions(start.attestationOptions, ORIGIN);
  await front('/v2/connect/append/finish', { attestationResponse: JSON.stringify(json), completionType: 'manual' }, { process: append.processID });
  const login = await front('/v2/connect/login/init', { clientInformation: capable, flags: {} });
  const ls = await front('/v2/connect/login/start', { identifier: email, source: 'text-field', loadedMs: 10 }, { process: login.token });
  const assertion = auth.getFromOptions(ls.assertionOptions, credential, ORIGIN);
  const lf = await front('/v2/connect/login/finish', { isConditionalUI: false, assertionResponse: JSON.stringify(assertion), loadedMs: 20 }, { process: login.token });
  return { signedPasskeyData: lf.signedPasskeyData, session: lf.session };
}

describe('pages', () => {
  it('serves the pages with their elements, the bundled scripts and /healthz', async () => {
    expect(demo.url).toMatch(/^http:\/\/localhost:[0-9]+$/);
    expect((await fetch(`${demo.url}/healthz`)).status).toBe(200);
    /** Which project each page works with: the connect project only where the app vouches for its users. */
    const projectOf: Record<string, ProjectJson> = { '/': selfService, '/account': selfService, '/connect': project, '/backend': project, '/web-js': selfService };
    const pages: Record<string, string[]> = {
      '/': ['id="login-form"', 'id="identifier"', 'autocomplete="username webauthn"', 'id="signup-form"', 'id="otp-form"', 'id="mail-banner"', 'role="status"', 'role="alert"'],
      '/account': ['id="passkeys"', 'id="add-passkey"', 'id="identifiers"', 'id="verify-form"', 'id="logout"', 'id="server-check"'],
      '/connect': ['id="pw-email"', 'id="connect-append"', 'id="connect-passkeys"', 'id="connect-identifier"', 'id="connect-result"'],
      '/backend': ['id="b-append"', 'id="b-login"', 'id="b-result"'],
      '/web-js': ['id="corbado-auth"', 'id="corbado-passkeys"', 'id="server-check"', 'id="logout"', 'href="/assets/web-js.css"'],
    };
    for (const [path, fragments] of Object.entries(pages)) {
      const res = await fetch(`${demo.url}${path}`);
      expect(res.status, path).toBe(200);
      const policy = res.headers.get('content-security-policy');
      // The web SDK's first calls go to https://{projectID}.{suffix} (the TLS front).
      expect(policy).toContain(`connect-src 'self' ${new URL(project.frontendApiUrl).origin} https://${selfService.projectID}.localhost:8443;`);
      expect(policy).toContain("script-src 'self';");
      // Only web-js's page takes the inline styles its components write.
      expect(policy).toContain(path === '/web-js' ? "style-src 'self' 'unsafe-inline';" : "style-src 'self';");
      const html = await res.text();
      for (const f of fragments) expect(html, `${path} has ${f}`).toContain(f);
      // The shared header: every page in the navigation, this one marked as current, no marker left.
      expect(html.match(/aria-current="page"/g), path).toHaveLength(1);
      expect(html).toContain(`<a href="${path}" aria-current="page">`);
      for (const other of Object.keys(pages)) expect(html).toContain(`<a href="${other}"`);
      expect(html).not.toContain('<!-- demo-');
      // The page's configuration: public values only.
      const config = JSON.parse(/<script id="demo-config" type="application\/json">(.*?)<\/script>/.exec(html)![1]!);
      expect(config, path).toEqual({ projectID: projectOf[path]!.projectID, frontendApiUrl: projectOf[path]!.frontendApiUrl, mailInboxUrl: 'http://127.0.0.1:1080', webSdkUrlSuffix: 'localhost:8443' });
      expect(html).not.toContain(project.apiSecret);
      expect(html).not.toContain(selfService.apiSecret);
    }
    // webJs: the published @corbado/web-js bundled in (built beside the server's start).
    for (const script of ['login', 'account', 'connect', 'backend', 'webJs']) {
      const res = await fetch(`${demo.url}/assets/${script}.js`);
      expect(res.status, script).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    }
    expect((await fetch(`${demo.url}/assets/style.css`)).status).toBe(200);
    const sdkCss = await fetch(`${demo.url}/assets/web-js.css`);
    expect([sdkCss.status, sdkCss.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
    expect((await fetch(`${demo.url}/nope`)).status).toBe(404);
  });
});

describe('password login (the connect page\'s own login)', () => {
  it('registers, refuses a second registration, signs in only with the right password', async () => {
    const reg = await api('/api/password/register', { body: { email: ' Dora@Example.com ', password: 'secret 1' } });
    expect(reg).toMatchObject({ status: 200, body: { email: 'dora@example.com' } });
    expect(reg.cookie).toMatch(/^demo_session=[A-Za-z0-9_-]+$/);
    expect((await api('/api/password/me', { cookie: reg.cookie })).body).toEqual({ email: 'dora@example.com' });

    const again = await api('/api/password/register', { body: { email: 'dora@example.com', password: 'other' } });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'email_taken' } } });
    expect((await api('/api/password/register', { body: { email: 'not-an-email', password: 'x' } })).body.error.code).toBe('email_invalid');
    expect((await api('/api/password/register', { body: { email: 'eve@example.com', password: '' } })).body.error.code).toBe('password_missing');

    const wrong = await api('/api/password/login', { body: { email: 'dora@example.com', password: 'secret 2' } });
    expect(wrong).toMatchObject({ status: 401, body: { error: { code: 'wrong_credentials' } } });
    expect(wrong.cookie).toBeNull();
    expect((await api('/api/password/login', { body: { email: 'nobody@example.com', password: 'secret 1' } })).status).toBe(401);
    const ok = await api('/api/password/login', { body: { email: 'DORA@example.com', password: 'secret 1' } });
    expect(ok).toMatchObject({ status: 200, body: { email: 'dora@example.com' } });
    expect((await api('/api/password/me', { cookie: ok.cookie })).status).toBe(200);
    expect((await api('/api/password/logout', { body: {}, cookie: ok.cookie })).status).toBe(200);
    expect((await api('/api/password/me', { cookie: ok.cookie })).body).toEqual({ email: null });
    expect((await api('/api/password/me')).body).toEqual({ email: null });
  });

  it('refuses bodies that are not JSON objects', async () => {
    const res = await fetch(`${demo.url}/api/password/login`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(res.status).toBe(415);
    const bad = await fetch(`${demo.url}/api/password/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1' });
    expect(bad.status).toBe(400);
    expect((await api('/api/nothing-here', { body: {} })).status).toBe(404);
  });
});

describe('connect tokens', () => {
  it('creates tokens of each type for the signed-in app user only, with the project\'s API secret', async () => {
    expect((await api('/api/connect-token', { body: { type: 'passkey-append' } })).status).toBe(401);
    const cookie = await appUser('frank@example.com');
    expect((await api('/api/connect-token', { body: { type: 'login' }, cookie })).body.error.code).toBe('type_invalid');
    for (const type of ['passkey-append', 'passkey-list', 'passkey-delete']) {
      const r = await api('/api/connect-token', { body: { type }, cookie });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(Object.keys(r.body)).toEqual(['secret']);
      expect(r.body.secret).toMatch(/^ctk_[A-Za-z0-9_-]{43}$/);
    }
    const listed = await fetch(`${stack.backendUrl}/v2/connectTokens?filter[]=identifier:eq:frank@example.com&pageSize=10`, { headers: { authorization: basic(project) } });
    const tokens = ((await listed.json()) as { connectTokens: { tokenType: string; data: Record<string, string> }[] }).connectTokens;
    expect(tokens.map((t) => t.tokenType).sort()).toEqual(['passkey-append', 'passkey-delete', 'passkey-list']);
    expect(tokens.find((t) => t.tokenType === 'passkey-append')!.data).toEqual({ identifier: 'frank@example.com', displayName: 'frank@example.com' });
  });
});

describe('token checks against the JWKS', () => {
  let grace: { signedPasskeyData: string; session: string };
  let graceCookie: string;

  beforeAll(async () => {
    graceCookie = await appUser('grace@example.com');
    grace = await connectLogin('grace@example.com', graceCookie);
  });

  it('/api/connect/verify answers the user of valid signedPasskeyData and signs the app user in', async () => {
    const fresh = await api('/api/connect/verify', { body: { signedPasskeyData: grace.signedPasskeyData } });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(fresh.body).toEqual({ userID: expect.stringMatching(/^usr-[0-9]+$/), username: 'grace@example.com' });
    // A new browser (no cookie) is now signed in to the app as grace.
    expect((await api('/api/password/me', { cookie: fresh.cookie })).body).toEqual({ email: 'grace@example.com' });
  });

  it('/api/connect/verify refuses missing, garbage, tampered, wrong-kind and other projects\' tokens', async () => {
    const [h, p, sig] = grace.signedPasskeyData.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, username: 'mallory@example.com' })).toString('base64url')}.${sig}`;
    const cookie = await appUser('henry@example.com');
    const theirs = (await connectLoginAs(other, 'henry@example.com')).signedPasskeyData;
    for (const [what, token] of [
      ['missing', undefined],
      ['garbage', 'not.a.jwt'],
      ['tampered', forged],
      ['a session token', grace.session],
      ['another project\'s', theirs],
    ] as const) {
      const r = await api('/api/connect/verify', { body: { signedPasskeyData: token }, cookie });
      expect({ what, status: r.status }).toEqual({ what, status: 401 });
      expect(r.body.error.code, what).toMatch(/^(token_missing|invalid_token|wrong_token_kind)$/);
    }
    expect((await api('/api/connect/verify', { body: { signedPasskeyData: grace.session } })).body.error.code).toBe('wrong_token_kind');
  });

  it("/api/session answers the claims of the self-service project's session token and refuses others", async () => {
    const ida = await connectLoginAs(selfService, 'ida@example.com');
    const ok = await api('/api/session', { bearer: ida.session });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    // The application vouched for ida's address (connect token): verified, so stated as her email.
    expect(ok.body).toEqual({ userID: expect.stringMatching(/^usr-/), name: 'ida@example.com', email: 'ida@example.com', emailVerified: true, identifiers: [{ type: 'email', value: 'ida@example.com', status: 'verified' }] });
    expect((await api('/api/session')).status).toBe(401);
    expect((await api('/api/session', { bearer: 'garbage' })).status).toBe(401);
    expect((await api('/api/session', { bearer: `${ida.session.slice(0, -6)}AAAAAA` })).status).toBe(401);
    // The sign-up pages' check takes the self-service project's sessions only, not the connect project's.
    expect((await api('/api/session', { bearer: grace.session })).body.error.code).toBe('invalid_token');
    const wrongKind = await api('/api/session', { bearer: ida.signedPasskeyData });
    expect(wrongKind).toMatchObject({ status: 401, body: { error: { code: 'wrong_token_kind' } } });
  });
});

/** signedPasskeyData and the session of a connect login on another project (same stack, so the same issuer but another key and audience). */
async function connectLoginAs(as: ProjectJson, email: string): Promise<{ signedPasskeyData: string; session: string }> {
  const token = await fetch(`${stack.backendUrl}/v2/connectTokens`, {
    method: 'POST',
    headers: { authorization: basic(as), 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'passkey-append', data: { identifier: email, displayName: email } }),
  }).then((r) => r.json() as Promise<{ secret: string }>);
  const append = await front('/v2/connect/append/init', { clientInformation: capable, flags: {} }, { as });
  const start = await front('/v2/connect/append/start', { appendTokenValue: token.secret, loadedMs: 10, forcePasskeyAppend: true }, { process: append.processID, as });
  const auth = new SoftAuthenticator({ transports: ['internal'] });
  const { json, credential } = auth.createFromOptions(start.attestationOptions, ORIGIN);
  await front('/v2/connect/append/finish', { attestationResponse: JSON.stringify(json), completionType: 'manual' }, { process: append.processID, as });
  const login = await front('/v2/connect/login/init', { clientInformation: capable, flags: {} }, { as });
  const ls = await front('/v2/connect/login/start', { identifier: email, source: 'text-field', loadedMs: 10 }, { process: login.token, as });
  const lf = await front('/v2/connect/login/finish', { isConditionalUI: false, assertionResponse: JSON.stringify(auth.getFromOptions(ls.assertionOptions, credential, ORIGIN)), loadedMs: 20 }, { process: login.token, as });
  return { signedPasskeyData: lf.signedPasskeyData as string, session: lf.session as string };
}

describe('backend API ceremonies run by the demo server (B2–B7)', () => {
  it('creates a user with a passkey, logs in with it, and finds it again without naming the user', async () => {
    const info = { clientInformation: { userVerifyingPlatformAuthenticatorAvailable: true, conditionalMediationAvailable: true } };
    expect((await api('/api/backend/login/start', { body: info })).body.error.code).toBe('no_demo_user');
    const start = await api('/api/backend/append/start', { body: info });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expect(start.body).toMatchObject({ userID: expect.stringMatching(/^usr-/), username: expect.stringMatching(/^demo-[0-9a-f]{6}$/), appendAllow: true });
    const cookie = start.cookie;
    const auth = new SoftAuthenticator({ transports: ['internal'] });
    const { json, credential } = auth.createFromOptions(start.body.attestationOptions, ORIGIN);
    const appended = await api('/api/backend/append/finish', { body: { ...info, attestationResponse: json }, cookie });
    expect(appended.status, JSON.stringify(appended.body)).toBe(200);
    expect(appended.body.passkeyData).toMatchObject({ userID: start.body.userID, username: start.body.username });
    // The ceremony is single-use: the same finish again is refused.
    expect((await api('/api/backend/append/finish', { body: { ...info, attestationResponse: json }, cookie })).body.error.code).toBe('not_started');

    const login = await api('/api/backend/login/start', { body: info, cookie });
    expect(login.body).toMatchObject({ userID: start.body.userID, loginAllow: true });
    const assertion = auth.getFromOptions(login.body.assertionOptions, credential, ORIGIN);
    const loggedIn = await api('/api/backend/login/finish', { body: { ...info, assertionResponse: assertion }, cookie });
    expect(loggedIn.status, JSON.stringify(loggedIn.body)).toBe(200);
    expect(loggedIn.body.signedPasskeyDataVerified).toEqual({ userID: start.body.userID, username: start.body.username });

    const mediation = await api('/api/backend/mediation/start', { body: info, cookie });
    expect(mediation.status).toBe(200);
    const picked = auth.getFromOptions(mediation.body.assertionOptions, credential, ORIGIN);
    const found = await api('/api/backend/mediation/finish', { body: { ...info, assertionResponse: picked }, cookie });
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.passkeyData).toMatchObject({ userID: start.body.userID, username: start.body.username });

    // A refused assertion comes back with the service's reason.
    const again = await api('/api/backend/login/start', { body: info, cookie });
    const bad = auth.getFromOptions(again.body.assertionOptions, credential, 'http://evil.example');
    const refused = await api('/api/backend/login/finish', { body: { ...info, assertionResponse: bad }, cookie });
    expect(refused).toMatchObject({ status: 400, body: { error: { code: 'origin_mismatch' } } });
  });
});
