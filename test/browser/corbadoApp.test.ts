/**
 * Drop-in test in a real browser for sign-up and login: the published web SDK's CorbadoApp
 * (@corbado/web-core 3.5.0: ProcessService and SessionService, bundled unchanged) in headless
 * Chromium with a virtual platform authenticator, against the real stack. It runs a passkey
 * sign-up, a passkey login, a conditional-UI login and an email-OTP login (code read from the mail
 * catcher) block by block, checks the sessions the `completed` blocks carry, and hands one to the
 * SessionService, which then reads the user and the passkeys with its refresh token and logs out;
 * and a sign-up that corrects its email address (ProcessService.updateEmail) and polls
 * getVerificationStatus.
 *
 * How the SDK reaches the gateway: CorbadoApp has no custom-domain option, only
 * `frontendApiUrlSuffix`, so its first calls (session config, process config) go to
 * `https://<projectID>.<suffix>`: the TLS front of `npm start` (deploy/local/tls, started by
 * startTlsFront.ts with a local CA Chromium trusts) that relays every connection unchanged. Once a configuration answer or a process names the frontend API URL, the SDK
 * calls the gateway directly.
 *
 * Needs Chromium like connectSdk.test.ts (skipped without it unless CI or
 * PASSKEYAUTH_REQUIRE_CHROMIUM=1), and certutil to make Chromium trust the front's CA.
 */
import { Config, SDK } from '@corbado/node-sdk';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import type { Browser, CDPSession } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type ProjectJson, type Stack } from '../kit/startStack.js';
import { chromiumMissing, chromiumRequired, failureScreenshot, formatExchanges, launchChromium, openPage, pageLog, type BrowserPage, type Exchange } from './chromium.js';
import { startMailCatcher, type MailCatcher } from './mailCatcher.js';
import type { AppHelpers, AppResult } from './page/corbadoAppPage.js';
import { startSdkPage, type SdkPageServer } from './sdkPage.js';
import { startTlsFront, type TlsFront } from './startTlsFront.js';

const missing = chromiumMissing();
const skip = missing !== null && !chromiumRequired();
if (skip) console.warn(`[test/browser] SKIPPED: ${missing}. Set CI=1 or PASSKEYAUTH_REQUIRE_CHROMIUM=1 to make this a failure.`);

const ADA = { email: 'ada@example.com', name: 'Ada Lovelace' };

type AppPage = BrowserPage & {
  /** Calls window.app[name](...args) in the page. */
  call<T = any>(name: Exclude<keyof AppHelpers, 'environment'>, ...args: unknown[]): Promise<AppResult<T>>;
  environment(): Promise<Awaited<ReturnType<AppHelpers['environment']>>>;
  /** Reloads the page (a new CorbadoApp; localStorage stays) and waits for it. */
  reload(): Promise<void>;
};

const waitForApp = (page: BrowserPage['page'], log: string[]) =>
  page.waitForFunction(() => window.appReady === true, undefined, { timeout: 15_000 }).catch((err: Error) => {
    throw new Error(`the CorbadoApp page did not start: ${err.message}\n${log.join('\n')}`, { cause: err });
  });

async function openAppPage(b: Browser, url: string): Promise<AppPage> {
  const base = await openPage(b, url, { ready: waitForApp });
  return {
    ...base,
    call(name, ...args) {
      return base.page.evaluate(([n, a]) => (window.app[n as keyof AppHelpers] as (...x: unknown[]) => Promise<AppResult>)(...(a as unknown[])), [name, args] as const) as Promise<AppResult<any>>;
    },
    environment: () => base.page.evaluate(() => window.app.environment()),
    async reload() {
      await base.page.reload();
      await waitForApp(base.page, base.log);
    },
  };
}

let stack: Stack;
let mail: MailCatcher;
let project: ProjectJson;
let pageServer: SdkPageServer;
let front: TlsFront;
let browser: Browser;
let app: AppPage;

/** A Block response as the SDK returns it (ProcessResponse). */
interface Block {
  blockBody: { block: string; authType: string; data: Record<string, any>; alternatives: { block: string; data: Record<string, any> }[]; error?: { code?: string } };
  common: { frontendApiUrl: string; appName: string };
  newProcess?: { token: string; expiresAt: number };
}

function ok<T>(res: AppResult<T>, what: string): T {
  if (!res.ok) expect.fail(`${what}: SDK returned ${res.err.name}: ${res.err.message}${pageLog(app)}`);
  return res.val;
}

function block(res: AppResult<Block>, what: string, expected: string): Block {
  const b = ok(res, what);
  expect(b.blockBody.error, `${what}: blockBody.error`).toBeUndefined();
  expect(b.blockBody.block, `${what}: next block`).toBe(expected);
  return b;
}

async function userIdOf(email: string): Promise<string> {
  const node = new SDK(new Config(project.projectID, project.apiSecret, project.frontendApiUrl, project.backendApiUrl));
  const { identifiers } = await node.identifiers().listByValueAndType(email, 'email');
  expect(identifiers, `identifiers for ${email}`).toHaveLength(1);
  return identifiers[0]!.userID;
}

/**
 * The application vouches for the address (node SDK: the identifier's status set to verified). A
 * sign-up completed with a passkey alone leaves its address unproven, and since #29 a typed login
 * (login/init) finds only proven or vouched-for addresses.
 */
async function vouchFor(email: string): Promise<void> {
  const node = new SDK(new Config(project.projectID, project.apiSecret, project.frontendApiUrl, project.backendApiUrl));
  const { identifiers } = await node.identifiers().listByValueAndType(email, 'email');
  expect(identifiers, `identifiers for ${email}`).toHaveLength(1);
  await node.identifiers().updateStatus(identifiers[0]!.userID, identifiers[0]!.identifierID, 'verified');
}

/** Verifies a `completed` block's session token against the project's JWKS; returns its claims. */
async function expectSession(done: Block, userID: string) {
  const { shortSession, longSession } = done.blockBody.data as { shortSession: string; longSession?: string };
  expect(shortSession?.split('.'), 'shortSession is a JWT').toHaveLength(3);
  expect(longSession, 'longSession is a refresh token').toMatch(/^rt_[A-Za-z0-9_-]{43}$/);
  const res = await fetch(`${project.frontendApiUrl}/.well-known/jwks`, { headers: { 'X-Corbado-ProjectID': project.projectID } });
  expect(res.status).toBe(200);
  const keys = createLocalJWKSet((await res.json()) as JSONWebKeySet);
  const { payload } = await jwtVerify(shortSession, keys, { issuer: project.frontendApiUrl, audience: project.projectID, algorithms: ['ES256'] }).catch((err: Error) => {
    throw new Error(`shortSession does not verify (${err.message}); claims ${JSON.stringify(decodeJwt(shortSession))}`, { cause: err });
  });
  expect(payload.sub).toBe(userID);
  expect(payload.kind).toBe('session');
  return payload;
}

/** The page's exchanges with the API since the last flush, as `METHOD path → status` lines. */
function calls(exchanges: Exchange[]): string[] {
  return exchanges.map((e) => `${e.method} ${new URL(e.url).host === new URL(project.frontendApiUrl).host ? '' : new URL(e.url).host}${new URL(e.url).pathname} → ${e.status}`);
}

/**
 * The CORS preflights Chromium sent, as `OPTIONS host/path → status` (CDP reports them as requests
 * whose initiator is `preflight`; the page's exchanges leave them out). The front relays bytes, so
 * the browser is where a preflight is seen.
 */
const preflights: { url: string; status: number }[] = [];
async function recordPreflights(cdp: CDPSession): Promise<void> {
  const byId = new Map<string, { url: string; status: number }>();
  cdp.on('Network.requestWillBeSent', (e) => {
    if (e.initiator.type !== 'preflight') return;
    const seen = { url: e.request.url, status: 0 };
    byId.set(e.requestId, seen);
    preflights.push(seen);
  });
  cdp.on('Network.responseReceived', (e) => {
    const seen = byId.get(e.requestId);
    if (seen) seen.status = e.response.status;
  });
  await cdp.send('Network.enable');
}
const preflightsOf = (path: string) => preflights.filter((p) => new URL(p.url).pathname === path).map((p) => `OPTIONS ${new URL(p.url).host}${path} → ${p.status}`);

/** `<projectID>.localhost:<port>`: the host CorbadoApp addresses before it knows the frontend API URL. */
const frontHost = () => `${project.projectID}.${front.suffix}`;

/** The calls of a page load that starts a process: session config and process config (through the front), process/init (gateway). */
const landingCalls = () => [`GET ${frontHost()}/v2/session-config → 200`, `GET ${frontHost()}/v2/process-config → 200`, 'POST /v2/auth/process/init → 200'];

/** A user landing on the sign-up/login page: no stored process, a new CorbadoApp, CorbadoApp.init(). */
async function landing() {
  await app.call('clearProcess');
  await app.reload();
  ok(await app.call('appInit'), 'CorbadoApp.init');
}

describe.skipIf(skip)('@corbado/web-core CorbadoApp (sign-up and login) in Chromium against the gateway', () => {
  beforeAll(async () => {
    const missingNow = chromiumMissing();
    if (missingNow) throw new Error(missingNow);
    mail = await startMailCatcher();
    stack = await startStack({ smtpUrl: mail.smtpUrl, emailFrom: 'Passkey Test <no-reply@localhost>' });
    pageServer = await startSdkPage('corbadoAppPage.ts');
    project = await stack.createProject('web-core-app', [pageServer.origin], ['--self-service', 'enabled']);
    front = await startTlsFront(stack.frontendUrl);
    // Chromium trusts the front's local CA as a developer's browser does (no --ignore-certificate-errors).
    browser = await launchChromium({ trustedCaPem: front.caPem });
    const url = `${pageServer.origin}/?${new URLSearchParams({ projectId: project.projectID, frontendApiUrlSuffix: front.suffix }).toString()}`;
    app = await openAppPage(browser, url);
    await recordPreflights(app.cdp);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await front?.close();
    await stack?.stop();
    await mail?.stop();
    await pageServer?.close();
  });

  afterEach(async (ctx) => {
    if (!app) return;
    await app.flush();
    if (ctx.task.result?.state === 'fail') {
      console.error(`[test/browser] "${ctx.task.name}" failed; screenshot ${await failureScreenshot(app, 'corbado-app', ctx.task.name)}`);
      if (app.log.length > 0) console.error(`[test/browser] page log for "${ctx.task.name}":\n${app.log.join('\n')}`);
      if (app.exchanges.length > 0) console.error(`[test/browser] API exchanges of "${ctx.task.name}":\n${formatExchanges(app.exchanges)}`);
    }
    app.log.length = 0;
    app.exchanges.length = 0;
  });

  describe('harness', () => {
    it('serves the page on localhost as a secure context with a user-verifying platform authenticator', async () => {
      const env = await app.environment();
      expect(env).toMatchObject({ isSecureContext: true, origin: pageServer.origin, uvpa: true, conditionalMediation: true, projectId: project.projectID });
      expect(await app.credentials()).toEqual([]);
    });
  });

  describe('flows', () => {
    let adaId: string;
    let credentialId: string;

    it('CorbadoApp.init reads the session config from https://<projectID>.<suffix>: the gateway, the project named by the host', async () => {
      ok(await app.call('appInit'), 'CorbadoApp.init');
      await app.flush();
      expect(calls(app.exchanges)).toEqual([`GET ${frontHost()}/v2/session-config → 200`]);
      // The cookie the SessionService keeps the session token in, under web-core 3.x's name and 2.x's.
      // Host-only (no domain) and, for this all-http://localhost project alone, not Secure.
      const cookie = { domain: '', secure: false, sameSite: 'lax', path: '/', lifetimeSeconds: 900 };
      expect(JSON.parse(app.exchanges[0]!.responseBody)).toEqual({ useSessionManagement: true, frontendApiUrl: project.frontendApiUrl, sessionTokenCookieConfig: cookie, shortSessionCookieConfig: cookie });
      // The preflight and the GET reached the gateway through the front (the GET's answer above is the gateway's).
      expect(preflightsOf('/v2/session-config')).toEqual([`OPTIONS ${frontHost()}/v2/session-config → 204`]);
      expect(front.refused).toEqual([]);
    });

    it('the gateway answers GET /v2/process-config with the project\'s frontend API URL', async () => {
      const res = await fetch(`${project.frontendApiUrl}/v2/process-config`, { headers: { 'X-Corbado-ProjectID': project.projectID } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ useServerSideProcessId: false, frontendApiUrl: project.frontendApiUrl });
    });

    it('sign-up: init → initSignup → appendPasskey → finishAuthProcess ends in `completed` with a session of the new user', async () => {
      const init = block(await app.call('processInit', 'signup-init'), 'ProcessService.init', 'signup-init');
      expect(init.common.frontendApiUrl).toBe(project.frontendApiUrl);
      await app.flush();
      // process-config through the front (the gateway's answer); process/init already went to the gateway directly.
      expect(calls(app.exchanges)).toEqual([`GET ${frontHost()}/v2/process-config → 200`, 'POST /v2/auth/process/init → 200']);
      expect(preflightsOf('/v2/process-config')).toEqual([`OPTIONS ${frontHost()}/v2/process-config → 204`]);
      // The form's fields and the switch to login.
      expect(init.blockBody.data.identifiers).toEqual([{ type: 'email', identifier: '' }]);
      expect(init.blockBody.alternatives.map((a) => a.block)).toEqual(['login-init']);
      const stored = ok(await app.call<{ id: string; frontendApiUrl: string }>('storedProcess'), 'stored process');
      expect(stored.frontendApiUrl).toBe(project.frontendApiUrl);
      expect(decodeJwt(stored.id)).toMatchObject({ kind: 'process', sub: expect.stringMatching(/^apr-/), aud: project.projectID });

      const signup = block(await app.call('initSignup', ADA.email, ADA.name), 'initSignup', 'passkey-append');
      expect(signup.blockBody.authType).toBe('signup');
      expect(signup.blockBody.data).toMatchObject({ identifierValue: ADA.email, identifierType: 'email' });
      expect(JSON.parse(signup.blockBody.data.challenge).publicKey).toMatchObject({ rp: { id: 'localhost' }, user: { name: ADA.email, displayName: ADA.name } });
      expect(signup.blockBody.alternatives.map((a) => a.block)).toEqual(['email-verify']);

      // appendPasskey: passkey/append/start, the ceremony (virtual authenticator), passkey/append/finish.
      block(await app.call('appendPasskey'), 'appendPasskey', 'passkey-appended');
      const creds = await app.credentials();
      expect(creds).toHaveLength(1);
      expect(creds[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
      credentialId = creds[0]!.credentialIdBase64url;

      const done = block(await app.call('finishAuthProcess'), 'finishAuthProcess', 'completed');
      expect(done.blockBody.authType).toBe('signup');
      expect(done.blockBody.data.passkeyOperation).toMatchObject({ operationType: 'append', identifierValue: ADA.email, identifierType: 'email' });
      adaId = await userIdOf(ADA.email);
      expect(adaId).toMatch(/^usr-[0-9]+$/);
      const claims = await expectSession(done, adaId);
      // The passkey proved no email address: listed as pending, not stated as the token's email.
      expect(claims).toMatchObject({ name: ADA.name, identifiers: [{ type: 'email', value: ADA.email, status: 'pending' }], email_verified: false });
      expect(claims).not.toHaveProperty('email');
      await app.flush();
      expect(calls(app.exchanges).slice(2)).toEqual([
        'POST /v2/auth/signup/init → 200',
        'POST /v2/auth/passkey/append/start → 200',
        'POST /v2/auth/passkey/append/finish → 200',
        'POST /v2/auth/process/complete → 200',
      ]);
      const finish = app.exchanges.find((e) => e.url.endsWith('/v2/auth/passkey/append/finish'))!;
      expect(JSON.parse(JSON.parse(finish.requestBody!).signedChallenge)).toMatchObject({ id: credentialId, type: 'public-key' });
    });

    it('login: a new page → init → initLogin → loginWithPasskey ends in `completed` with a session of the user', async () => {
      expect(adaId, 'needs the sign-up').toBeDefined();
      await vouchFor(ADA.email);
      await landing();
      const init = block(await app.call('processInit', 'login-init'), 'ProcessService.init', 'login-init');
      expect(init.blockBody.data).toMatchObject({ isEmailAvailable: true, conditionalUIChallenge: expect.any(String) });

      const login = block(await app.call('initLogin', ADA.email, false), 'initLogin', 'passkey-verify');
      expect(login.blockBody.authType).toBe('login');
      expect(login.blockBody.data.identifierValue).toBe(ADA.email);
      const options = JSON.parse(login.blockBody.data.challenge).publicKey;
      expect(options).toMatchObject({ rpId: 'localhost', challenge: expect.any(String) });
      expect((options.allowCredentials ?? []).map((c: { id: string }) => c.id)).toContain(credentialId);
      expect(login.blockBody.alternatives.map((a) => a.block)).toContain('email-verify');

      const signCount = (await app.credentials())[0]!.signCount;
      // loginWithPasskey: passkey/login/start, the ceremony, passkey/login/finish.
      const done = block(await app.call('loginWithPasskey'), 'loginWithPasskey', 'completed');
      expect(done.blockBody.authType).toBe('login');
      expect(done.blockBody.data.passkeyOperation).toMatchObject({ operationType: 'verify', identifierValue: ADA.email });
      await expectSession(done, adaId);
      expect((await app.credentials())[0]!.signCount).toBeGreaterThan(signCount);
      await app.flush();
      expect(calls(app.exchanges)).toEqual([
        ...landingCalls(),
        'POST /v2/auth/login/init → 200',
        'POST /v2/auth/passkey/login/start → 200',
        'POST /v2/auth/passkey/login/finish → 200',
      ]);
    });

    it('SessionService.setSession with the `completed` block holds the session (in its cookie) and reports the user', async () => {
      expect(adaId, 'needs the sign-up').toBeDefined();
      // What @corbado/shared-ui 3.5.0 does with a `completed` block (ProcessHandler.onProcessCompleted):
      // app.sessionService.setSession(data.sessionToken, data.refreshToken). web-core 3.5.0 writes the
      // session-token cookie from the session config's sessionTokenCookieConfig.
      await landing();
      block(await app.call('processInit', 'login-init'), 'ProcessService.init', 'login-init');
      block(await app.call('initLogin', ADA.email, false), 'initLogin', 'passkey-verify');
      const done = block(await app.call('loginWithPasskey'), 'loginWithPasskey', 'completed');
      await expectSession(done, adaId);
      expect({ sessionToken: done.blockBody.data.sessionToken, refreshToken: done.blockBody.data.refreshToken }).toEqual({ sessionToken: done.blockBody.data.shortSession, refreshToken: done.blockBody.data.longSession });

      ok(await app.call('setSessionFromCompleted', done), 'SessionService.setSession');
      const state = ok(await app.call<{ sessionToken: string; user: Record<string, unknown>; authState: string; cookie: string }>('session'), 'session');
      expect(state.authState).toBe('LoggedIn');
      expect(state.sessionToken).toBe(done.blockBody.data.sessionToken);
      expect(state.user).toMatchObject({ sub: adaId, name: ADA.name });
      expect(state.cookie).toContain(`cbo_session_token=${done.blockBody.data.sessionToken}`);
      ok(await app.call('logout'), 'SessionService.logout');
    });

    it('conditional UI: loginWithPasskeyChallenge with the conditionalUIChallenge of process init ends in `completed`', async () => {
      expect(adaId, 'needs the sign-up').toBeDefined();
      await landing();
      expect(ok(await app.call<boolean>('isConditionalUISupported'), 'isConditionalUISupported')).toBe(true);
      const init = block(await app.call('processInit', 'login-init'), 'ProcessService.init', 'login-init');
      const challenge = init.blockBody.data.conditionalUIChallenge as string;
      expect(JSON.parse(challenge).publicKey).toMatchObject({ rpId: 'localhost', challenge: expect.any(String) });

      // The user focuses the webauthn field; the virtual authenticator answers the conditional get.
      await app.page.focus('#username');
      const done = block(await app.call('loginWithPasskeyChallenge', challenge), 'loginWithPasskeyChallenge', 'completed');
      expect(done.blockBody.authType).toBe('login');
      expect(done.blockBody.data.passkeyOperation).toMatchObject({ operationType: 'verify', identifierValue: ADA.email });
      await expectSession(done, adaId);
      await app.flush();
      expect(calls(app.exchanges)).toEqual([...landingCalls(), 'POST /v2/auth/passkey/mediation/finish → 200']);
      const finish = app.exchanges.find((e) => e.url.endsWith('/v2/auth/passkey/mediation/finish'))!;
      expect(JSON.parse(JSON.parse(finish.requestBody!).signedChallenge)).toMatchObject({ id: credentialId, type: 'public-key' });
    });

    it('email OTP: initLogin → startEmailCodeVerification → finishEmailCodeVerification (code from the mail) ends in `completed`', async () => {
      expect(adaId, 'needs the sign-up').toBeDefined();
      await landing();
      block(await app.call('processInit', 'login-init'), 'ProcessService.init', 'login-init');
      block(await app.call('initLogin', ADA.email, false), 'initLogin', 'passkey-verify');
      const seen = await mail.seen();
      const verify = block(await app.call('startEmailCodeVerification'), 'startEmailCodeVerification', 'email-verify');
      expect(verify.blockBody.data).toMatchObject({ verificationMethod: 'email-otp', identifier: ADA.email });
      const code = await mail.codeFor(ADA.email, seen);

      const wrong = ok(await app.call<Block>('finishEmailCodeVerification', code === '000000' ? '111111' : '000000'), 'finishEmailCodeVerification (wrong code)');
      expect(wrong.blockBody.block).toBe('email-verify');
      expect(wrong.blockBody.error).toMatchObject({ code: 'invalid_code' });

      const done = block(await app.call('finishEmailCodeVerification', code), 'finishEmailCodeVerification', 'completed');
      expect(done.blockBody.authType).toBe('login');
      await expectSession(done, adaId);
      await app.flush();
      expect(calls(app.exchanges)).toEqual([
        ...landingCalls(),
        'POST /v2/auth/login/init → 200',
        'POST /v2/auth/identifier/verify/start → 200',
        'POST /v2/auth/identifier/verify/finish → 200',
        'POST /v2/auth/identifier/verify/finish → 200',
      ]);
    });

    it('a page load with a stored process asks GET /v2/auth/process: a completed one is refused (409) and the SDK starts a new process', async () => {
      expect(adaId, 'needs the sign-up').toBeDefined();
      // The completed process of the last test is still in localStorage (the page helper does not
      // clear it as shared-ui does): init asks for its state first, and on the error starts a new
      // process (without process-config: the stored process names the URL).
      const before = ok(await app.call<{ id: string } | null>('storedProcess'), 'stored process');
      expect(before).not.toBeNull();
      await app.reload();
      ok(await app.call('appInit'), 'CorbadoApp.init');
      block(await app.call('processInit', 'login-init'), 'ProcessService.init', 'login-init');
      const after = ok(await app.call<{ id: string }>('storedProcess'), 'stored process');
      expect(after.id).not.toBe(before!.id);
      await app.flush();
      expect(calls(app.exchanges)).toEqual([`GET ${frontHost()}/v2/session-config → 200`, 'GET /v2/auth/process → 409', 'POST /v2/auth/process/init → 200']);
      const get = app.exchanges.find((e) => new URL(e.url).pathname === '/v2/auth/process')!;
      expect(new URL(get.url).searchParams.get('preferredBlock')).toBe('login-init');
      expect(JSON.parse(get.responseBody).error).toMatchObject({ type: 'process_completed' });
    });

    it('a page load with a stored process still at its first block resumes it (GET /v2/auth/process → 200), and the SDK renews an untouched one', async () => {
      expect(adaId, 'needs the sign-up').toBeDefined();
      const stored = ok(await app.call<{ id: string }>('storedProcess'), 'stored process');
      await app.reload();
      ok(await app.call('appInit'), 'CorbadoApp.init');
      block(await app.call('processInit', 'signup-init'), 'ProcessService.init', 'signup-init');
      await app.flush();
      expect(calls(app.exchanges)).toEqual([`GET ${frontHost()}/v2/session-config → 200`, 'GET /v2/auth/process → 200', 'POST /v2/auth/process/init → 200']);
      const get = app.exchanges.find((e) => new URL(e.url).pathname === '/v2/auth/process')!;
      expect(get.requestHeaders['x-corbado-process-id']).toBe(stored.id);
      // The stored process was at login-init; the page asked for sign-up, which the answer shows.
      expect(JSON.parse(get.responseBody).blockBody).toMatchObject({ block: 'signup-init', data: { identifiers: [{ type: 'email', identifier: '' }] } });
    });

    it('the SessionService reads the user and the passkeys with its refresh token, and logs out', async () => {
      expect(adaId, 'needs the sign-up').toBeDefined();
      await landing();
      block(await app.call('processInit', 'login-init'), 'ProcessService.init', 'login-init');
      block(await app.call('initLogin', ADA.email, false), 'initLogin', 'passkey-verify');
      const done = block(await app.call('loginWithPasskey'), 'loginWithPasskey', 'completed');
      ok(await app.call('setSessionFromCompleted', done), 'SessionService.setSession');
      expect(ok(await app.call<{ authState: string }>('session'), 'session').authState).toBe('LoggedIn');

      // web-core 3.5.0 authenticates its /v2/me calls with the refresh token as the bearer.
      const me = ok(await app.call<{ id: string; fullName: string }>('getFullUser'), 'getFullUser');
      expect(me).toMatchObject({ id: adaId, fullName: ADA.name });
      const passkeys = ok(await app.call<{ passkeys: { id: string }[] }>('passkeyList'), 'passkeyList');
      expect(passkeys.passkeys).toHaveLength(1);
      await app.flush();
      const meCall = app.exchanges.find((e) => new URL(e.url).pathname === '/v2/me')!;
      expect(meCall.requestHeaders.authorization).toBe(`Bearer ${done.blockBody.data.refreshToken}`);
      expect(meCall.status).toBe(200);

      ok(await app.call('logout'), 'SessionService.logout');
      expect(ok(await app.call<{ authState: string }>('session'), 'session').authState).toBe('LoggedOut');
      await app.flush();
      expect(calls(app.exchanges).slice(-1)).toEqual(['POST /v2/me/logout → 204']);
      const refresh = await fetch(`${project.frontendApiUrl}/v2/me/refresh`, {
        method: 'POST',
        headers: { authorization: `Bearer ${done.blockBody.data.refreshToken}`, 'X-Corbado-ProjectID': project.projectID },
      });
      expect(refresh.status, 'the refresh token of the logged-out session').toBe(401);
      const meAfter = await fetch(`${project.frontendApiUrl}/v2/me`, { headers: { authorization: `Bearer ${done.blockBody.data.refreshToken}`, 'X-Corbado-ProjectID': project.projectID } });
      expect(meAfter.status, '/v2/me with the refresh token of the logged-out session').toBe(401);
    });

    it('a second process in the same page (after clearProcess) reads /v2/process-config from the gateway and starts', async () => {
      // After its first process the ProcessService addresses process-config at the process's
      // frontendApiUrl (the gateway itself), not at https://<projectID>.<suffix>.
      await app.call('clearProcess');
      block(await app.call('processInit', 'login-init'), 'ProcessService.init', 'login-init');
      await app.flush();
      expect(calls(app.exchanges)).toEqual(['GET /v2/process-config → 200', 'POST /v2/auth/process/init → 200']);
    });
  });

  describe('correcting the identifier of a sign-up', () => {
    it('updateEmail in passkey-append (a block error for a bad address), then getVerificationStatus while the code is out, and the corrected address signs up', async () => {
      await landing();
      block(await app.call('processInit', 'signup-init'), 'ProcessService.init', 'signup-init');
      const append = block(await app.call('initSignup', 'grace@exmaple.com', 'Grace Hopper'), 'initSignup', 'passkey-append');
      expect(append.blockBody.data.identifierValue).toBe('grace@exmaple.com');

      // What PasskeyAppendBlock.updateEmail reads: blockBody.error, else the new passkey-append block.
      const bad = ok(await app.call<Block>('updateEmail', 'grace-at-example'), 'updateEmail (malformed)');
      expect(bad.blockBody).toMatchObject({ block: 'passkey-append', error: { code: 'identifier_invalid_format' } });
      const fixed = block(await app.call('updateEmail', 'grace@example.com'), 'updateEmail', 'passkey-append');
      expect(fixed.blockBody.data.identifierValue).toBe('grace@example.com');
      expect(JSON.parse(fixed.blockBody.data.challenge as string).publicKey.user.name).toBe('grace@example.com');

      const seen = await mail.seen();
      const verify = block(await app.call('startEmailCodeVerification'), 'startEmailCodeVerification', 'email-verify');
      expect(verify.blockBody.data).toMatchObject({ verificationMethod: 'email-otp', identifier: 'grace@example.com' });
      // Still waiting: the verification block, not continueOnOtherDevice (the SDK keeps polling).
      const waiting = block(await app.call('getVerificationStatus'), 'getVerificationStatus', 'email-verify');
      expect(waiting.blockBody).not.toHaveProperty('continueOnOtherDevice');
      const code = await mail.codeFor('grace@example.com', seen);
      const next = ok(await app.call<Block>('finishEmailCodeVerification', code), 'finishEmailCodeVerification');
      const done = next.blockBody.block === 'completed' ? next : block(await app.call('skipBlock'), 'skipBlock', 'completed');
      await expectSession(done, await userIdOf('grace@example.com'));
      await app.flush();
      expect(calls(app.exchanges).filter((c) => c.includes('/v2/auth/identifier/'))).toEqual([
        'POST /v2/auth/identifier/update → 200',
        'POST /v2/auth/identifier/update → 200',
        'POST /v2/auth/identifier/verify/start → 200',
        'GET /v2/auth/identifier/verify/status → 200',
        'POST /v2/auth/identifier/verify/finish → 200',
      ]);
      const update = app.exchanges.find((e) => e.url.endsWith('/v2/auth/identifier/update'))!;
      expect(JSON.parse(update.requestBody!)).toEqual({ identifierType: 'email', value: 'grace-at-example' });
    });
  });
});
