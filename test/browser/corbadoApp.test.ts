/**
 * Drop-in test in a real browser for sign-up and login: the published web SDK's CorbadoApp
 * (@corbado/web-core 3.5.0: ProcessService and SessionService, bundled unchanged) in headless
 * Chromium with a virtual platform authenticator, against the real stack. It runs a passkey
 * sign-up, a passkey login, a conditional-UI login and an email-OTP login (code read from the mail
 * catcher) block by block, and checks the sessions the `completed` blocks carry; and a sign-up that
 * corrects its email address (ProcessService.updateEmail) and polls getVerificationStatus.
 *
 * How the SDK reaches the gateway: CorbadoApp has no custom-domain option, only
 * `frontendApiUrlSuffix`, so its first calls go to `https://<projectID>.<suffix>`. The test puts a
 * TLS front (self-signed certificate made with openssl; Chromium started with
 * --ignore-certificate-errors) on 127.0.0.1 and uses the suffix `localhost:<port>`; Chromium
 * resolves `<projectID>.localhost` to the loopback address, and the front passes every request
 * unchanged (Host included, so the gateway reads the project from the host name) to the gateway.
 * Once a configuration answer or a process names the frontend API URL, the SDK calls the gateway
 * directly.
 *
 * The one call outside our interface: with no process stored, ProcessService.init first reads
 * `GET /v2/process-config` (`{useServerSideProcessId, frontendApiUrl}`), which neither the
 * interface spec nor the reference OpenAPI has, and which the gateway answers with 404. The front
 * answers that one GET itself (the test checks that the gateway does not have it, and that nothing
 * else is stubbed), with the project's frontend API URL, as the hosted service would.
 *
 * Known gaps (tests named GAP pin the current behaviour):
 * - SessionService.setSession throws without `sessionTokenCookieConfig` in GET /v2/session-config
 *   (web-core 3.5.0 reads only that field; the reference's sessionConfigRsp has the older
 *   `shortSessionCookieConfig`; the gateway returns neither). One test has the front add the field
 *   to show what follows: the SessionService then holds the session and logs out, but
 * - it authenticates GET /v2/me and /v2/me/passkeys with the refresh token (longSession) as the
 *   bearer, where the interface takes the session token: 401 invalid_token.
 * - A stored process makes ProcessService.init ask GET /v2/auth/process (reference, not
 *   implemented: the preflight gets 404); the SDK then starts a new process, which works.
 * - A second process in the same page (after clearProcess) asks the gateway itself for
 *   /v2/process-config and fails; a page load (a new CorbadoApp) works, so each flow starts with one.
 *
 * Needs Chromium like connectSdk.test.ts (skipped without it unless CI or
 * PASSKEYAUTH_REQUIRE_CHROMIUM=1), and openssl for the front's certificate.
 */
import { Config, SDK } from '@corbado/node-sdk';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type ProjectJson, type Stack } from '../kit/startStack.js';
import { CHROMIUM_PATH, chromiumMissing, chromiumRequired, failureScreenshot, formatExchanges, openPage, pageLog, type BrowserPage, type Exchange } from './chromium.js';
import { startMailCatcher, type MailCatcher } from './mailCatcher.js';
import type { AppHelpers, AppResult } from './page/corbadoAppPage.js';
import { startSdkPage, type SdkPageServer } from './sdkPage.js';

const missing = chromiumMissing();
const skip = missing !== null && !chromiumRequired();
if (skip) console.warn(`[test/browser] SKIPPED: ${missing}. Set CI=1 or PASSKEYAUTH_REQUIRE_CHROMIUM=1 to make this a failure.`);

const ADA = { email: 'ada@example.com', name: 'Ada Lovelace' };

/** A request the TLS front saw: passed to the gateway, or answered itself (`stubbed`). */
interface FrontRequest {
  method: string;
  host: string;
  path: string;
  status: number;
  /** Answered by the front itself (process-config). */
  stubbed: boolean;
  /** The gateway's answer with `sessionConfigExtra` merged in. */
  augmented?: boolean;
}

interface TlsFront {
  port: number;
  /** `localhost:<port>`: CorbadoApp's frontendApiUrlSuffix. */
  suffix: string;
  requests: FrontRequest[];
  /** When set, merged into the gateway's GET /v2/session-config answer. */
  sessionConfigExtra?: Record<string, unknown>;
  close(): Promise<void>;
}

/**
 * An HTTPS server on 127.0.0.1 that passes every request unchanged to `target` (an http:// URL),
 * except GET /v2/process-config, which it answers with `processConfig` (with the CORS headers the
 * gateway gives the page's origin).
 */
async function startTlsFront(target: string, processConfig: { useServerSideProcessId: boolean; frontendApiUrl: string }): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'tls-front-'));
  let key: Buffer;
  let cert: Buffer;
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'pipe' },
    );
    key = readFileSync(join(dir, 'key.pem'));
    cert = readFileSync(join(dir, 'cert.pem'));
  } catch (err) {
    throw new Error(`openssl could not make the TLS front's certificate: ${(err as Error).message}`, { cause: err });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const upstream = new URL(target);
  const requests: FrontRequest[] = [];
  const front: TlsFront = { port: 0, suffix: '', requests, close: async () => undefined };
  const server: HttpsServer = createHttpsServer({ key, cert }, (req, res) => {
    const path = req.url ?? '/';
    const seen: FrontRequest = { method: req.method ?? '', host: req.headers.host ?? '', path, status: 0, stubbed: false };
    requests.push(seen);
    if (new URL(path, 'https://front.invalid').pathname === '/v2/process-config' && (req.method === 'GET' || req.method === 'OPTIONS')) {
      // The page origin is the only one the project allows; the gateway's CORS answers check that.
      seen.stubbed = true;
      const origin = req.headers.origin;
      const cors = origin ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' } : {};
      if (req.method === 'OPTIONS') {
        seen.status = 204;
        const asked = req.headers['access-control-request-headers'];
        res.writeHead(204, { ...cors, 'access-control-allow-methods': 'GET', ...(asked ? { 'access-control-allow-headers': asked } : {}) }).end();
      } else {
        seen.status = 200;
        res.writeHead(200, { 'content-type': 'application/json', ...cors }).end(JSON.stringify(processConfig));
      }
      return;
    }
    const extra = req.method === 'GET' && new URL(path, 'https://front.invalid').pathname === '/v2/session-config' ? front.sessionConfigExtra : undefined;
    const headers = extra ? { ...req.headers, 'accept-encoding': 'identity' } : req.headers;
    const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path, headers }, (up) => {
      seen.status = up.statusCode ?? 0;
      if (!extra || up.statusCode !== 200) {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => {
        seen.augmented = true;
        const body = JSON.stringify({ ...(JSON.parse(Buffer.concat(chunks).toString('utf8')) as object), ...extra });
        const { 'content-length': _len, ...rest } = up.headers;
        res.writeHead(200, { ...rest, 'content-length': Buffer.byteLength(body) }).end(body);
      });
    });
    out.on('error', (err) => {
      seen.status = 502;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`front: ${err.message}`);
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return Object.assign(front, {
    port,
    suffix: `localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

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

/** `<projectID>.localhost:<port>`: the host CorbadoApp addresses before it knows the frontend API URL. */
const frontHost = () => `${project.projectID}.${front.suffix}`;

/** The calls of a page load that starts a process: session config and process config (front), process/init (gateway). */
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
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--ignore-certificate-errors'],
    });
    mail = await startMailCatcher();
    stack = await startStack({ smtpUrl: mail.smtpUrl, emailFrom: 'Passkey Test <no-reply@localhost>' });
    pageServer = await startSdkPage('corbadoAppPage.ts');
    project = await stack.createProject('web-core-app', [pageServer.origin]);
    front = await startTlsFront(stack.frontendUrl, { useServerSideProcessId: false, frontendApiUrl: project.frontendApiUrl });
    const url = `${pageServer.origin}/?${new URLSearchParams({ projectId: project.projectID, frontendApiUrlSuffix: front.suffix }).toString()}`;
    app = await openAppPage(browser, url);
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
      expect(JSON.parse(app.exchanges[0]!.responseBody)).toEqual({ useSessionManagement: true, frontendApiUrl: project.frontendApiUrl });
      // The preflight and the GET reached the gateway through the front (not stubbed).
      expect(front.requests.filter((r) => r.path === '/v2/session-config')).toEqual([
        expect.objectContaining({ method: 'OPTIONS', status: 204, stubbed: false }),
        expect.objectContaining({ method: 'GET', status: 200, stubbed: false, host: `${project.projectID}.${front.suffix}` }),
      ]);
    });

    it('the gateway does not have GET /v2/process-config (outside the spec and the reference), which the front stands in for', async () => {
      const res = await fetch(`${project.frontendApiUrl}/v2/process-config`, { headers: { 'X-Corbado-ProjectID': project.projectID } });
      expect(res.status).toBe(404);
    });

    it('sign-up: init → initSignup → appendPasskey → finishAuthProcess ends in `completed` with a session of the new user', async () => {
      const init = block(await app.call('processInit', 'signup-init'), 'ProcessService.init', 'signup-init');
      expect(init.common.frontendApiUrl).toBe(project.frontendApiUrl);
      await app.flush();
      // The front answered process-config (the only stub); process/init already went to the gateway directly.
      expect(calls(app.exchanges)).toEqual([`GET ${frontHost()}/v2/process-config → 200`, 'POST /v2/auth/process/init → 200']);
      expect(front.requests.filter((r) => r.stubbed).map((r) => `${r.method} ${r.path}`)).toEqual(['OPTIONS /v2/process-config', 'GET /v2/process-config']);
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
      expect(claims).toMatchObject({ name: ADA.name, identifiers: [{ type: 'email', value: ADA.email }] });
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

    it('GAP: SessionService.setSession with the `completed` block throws: /v2/session-config has no sessionTokenCookieConfig', async () => {
      expect(adaId, 'needs the sign-up').toBeDefined();
      // What @corbado/shared-ui's CompletedBlock does with a `completed` block:
      // app.sessionService.setSession(data.shortSession, data.longSession). web-core 3.5.0 writes
      // the session-token cookie from the session config's sessionTokenCookieConfig (a field the
      // reference's sessionConfigRsp does not have; it has the older shortSessionCookieConfig,
      // which the gateway does not return either) and throws CorbadoError.invalidConfig() without
      // it, before it stores the refresh token or reports the login.
      await landing();
      block(await app.call('processInit', 'login-init'), 'ProcessService.init', 'login-init');
      block(await app.call('initLogin', ADA.email, false), 'initLogin', 'passkey-verify');
      const done = block(await app.call('loginWithPasskey'), 'loginWithPasskey', 'completed');
      await expectSession(done, adaId);
      const config = JSON.parse(app.exchanges.find((e) => e.url.endsWith('/v2/session-config'))!.responseBody);
      expect(config).not.toHaveProperty('sessionTokenCookieConfig');

      const set = await app.call('setSessionFromCompleted', done);
      expect(set.ok, JSON.stringify(set)).toBe(false);
      if (!set.ok) expect(set.err).toMatchObject({ name: 'Thrown CorbadoError', recoverable: false, ignore: false });
      const state = ok(await app.call<{ authState: string; cookie: string }>('session'), 'session');
      expect(state).toMatchObject({ authState: 'LoggedOut', cookie: '' });
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

    it('GAP: a page load with a stored process asks GET /v2/auth/process (reference; the gateway has no such route) and then starts a new process', async () => {
      expect(adaId, 'needs the sign-up').toBeDefined();
      // The completed process of the last test is still in localStorage: init asks for its state
      // (GET /v2/auth/process, in the reference, not in the spec) first, and on an error starts a
      // new process (without process-config: the stored process names the URL).
      expect(ok(await app.call('storedProcess'), 'stored process')).not.toBeNull();
      const before = (ok(await app.call<{ id: string }>('storedProcess'), 'stored process')).id;
      await app.reload();
      ok(await app.call('appInit'), 'CorbadoApp.init');
      block(await app.call('processInit', 'login-init'), 'ProcessService.init', 'login-init');
      expect((ok(await app.call<{ id: string }>('storedProcess'), 'stored process')).id).not.toBe(before);
      await app.flush();
      // The gateway answers the preflight of the unknown route with 404, so the browser never sends the GET.
      expect(calls(app.exchanges)).toEqual([`GET ${frontHost()}/v2/session-config → 200`, 'POST /v2/auth/process/init → 200']);
      expect(app.log.join('\n')).toContain(`requestfailed: GET ${project.frontendApiUrl}/v2/auth/process?preferredBlock=login-init`);
    });

    it('with sessionTokenCookieConfig added to the session config (by the front), the SessionService takes the session and logs out (GAP: /v2/me with the refresh token)', async () => {
      expect(adaId, 'needs the sign-up').toBeDefined();
      // What the SessionService would do with our sessions if /v2/session-config had the field:
      // the front merges it into the gateway's answer; everything else is the gateway's.
      front.sessionConfigExtra = { sessionTokenCookieConfig: { domain: 'localhost', secure: true, sameSite: 'lax', path: '/', lifetimeSeconds: 900 } };
      try {
        await landing();
      } finally {
        delete front.sessionConfigExtra;
      }
      expect(front.requests.filter((r) => r.augmented)).toHaveLength(1);
      block(await app.call('processInit', 'login-init'), 'ProcessService.init', 'login-init');
      block(await app.call('initLogin', ADA.email, false), 'initLogin', 'passkey-verify');
      const done = block(await app.call('loginWithPasskey'), 'loginWithPasskey', 'completed');
      ok(await app.call('setSessionFromCompleted', done), 'SessionService.setSession');
      const state = ok(await app.call<{ sessionToken: string; user: Record<string, unknown>; authState: string; cookie: string }>('session'), 'session');
      expect(state.authState).toBe('LoggedIn');
      expect(state.sessionToken).toBe(done.blockBody.data.shortSession);
      expect(state.user).toMatchObject({ sub: adaId, name: ADA.name });

      // GAP: the SessionService authenticates its /v2/me calls with the refresh token (longSession)
      // as the bearer; the interface (and the gateway) take a session token (a JWT) there.
      const me = await app.call('getFullUser');
      expect(me.ok).toBe(false);
      if (!me.ok) expect(me.err.message).toContain('(invalid_token)');
      await app.flush();
      const meCall = app.exchanges.find((e) => new URL(e.url).pathname === '/v2/me')!;
      expect(meCall.requestHeaders.authorization).toBe(`Bearer ${done.blockBody.data.longSession}`);
      expect(meCall.status).toBe(401);
      expect(JSON.parse(meCall.responseBody).error).toMatchObject({ type: 'invalid_token', details: 'the token is not a JWT' });
      // The same call with the session token works.
      const direct = await fetch(`${project.frontendApiUrl}/v2/me`, { headers: { authorization: `Bearer ${state.sessionToken}` } });
      expect(direct.status).toBe(200);
      expect(await direct.json()).toMatchObject({ id: adaId, fullName: ADA.name });

      ok(await app.call('logout'), 'SessionService.logout');
      expect(ok(await app.call<{ authState: string }>('session'), 'session').authState).toBe('LoggedOut');
      await app.flush();
      expect(calls(app.exchanges).slice(-1)).toEqual(['POST /v2/me/logout → 204']);
      const refresh = await fetch(`${project.frontendApiUrl}/v2/me/refresh`, {
        method: 'POST',
        headers: { authorization: `Bearer ${done.blockBody.data.longSession}`, 'X-Corbado-ProjectID': project.projectID },
      });
      expect(refresh.status, 'the refresh token of the logged-out session').toBe(401);
    });

    it('GAP: a second process in the same page (after clearProcess) asks the gateway for /v2/process-config, which fails', async () => {
      // After its first process the ProcessService addresses process-config at the process's
      // frontendApiUrl (the gateway), not at https://<projectID>.<suffix>; the gateway has no such
      // route, so the CORS preflight gets a 404 and the SDK reports a network error.
      await app.call('clearProcess');
      const res = await app.call('processInit', 'login-init');
      expect(res.ok).toBe(false);
      if (!res.ok) expect(res.err.message).toContain('no_data_in_response');
      expect(app.log.join('\n')).toContain(`${project.frontendApiUrl}/v2/process-config`);
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
