/**
 * Drop-in test in a real browser for the published UI bundle: @corbado/web-js 3.5.0 (with
 * @corbado/react and @corbado/web-core 3.5.0, bundled unchanged from npm by esbuild into the page)
 * in Debian's Chromium with a CDP virtual platform authenticator, against the real stack. A user
 * signs up with a passkey through mountAuthUI, logs out, logs in with the passkey through
 * mountAuthUI (conditional UI), deletes the passkey and creates another in mountPasskeyListUI,
 * sees the account in mountUserUI,
 * logs in through mountLoginUI, and without the passkey types the email and logs in with the
 * emailed code; @corbado/node-sdk validates the session tokens the browser got, as an
 * application's backend would. Two more projects with 60-second session tokens show web-core's
 * session refresh with and without refresh token rotation.
 *
 * The SDK's first calls go to `https://<projectID>.<suffix>`: the TLS front of `npm start`
 * (deploy/local/tls, started by startTlsFront.ts with a local CA Chromium trusts) that relays every
 * connection to the gateway unchanged. Telemetry to the hosted service is
 * off (webJsPage.ts), and the test checks that the page made no request to any other host.
 *
 * Needs Chromium (skipped without it unless CI or PASSKEYAUTH_REQUIRE_CHROMIUM=1) and certutil.
 */
import { Config, SDK } from '@corbado/node-sdk';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type ProjectJson, type Stack } from '../kit/startStack.js';
import { openProjectAdmin } from '../../services/connect/src/cli/projectAdmin.js';
import { updateSessionSettings } from '../../services/connect/src/projects/domain/updateSessionSettings.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';
import { chromiumMissing, chromiumRequired, failureScreenshot, formatExchanges, launchChromium, openPage, type BrowserPage, type Exchange } from './chromium.js';
import type { WebJsHelpers } from './page/webJsPage.js';
import { startMailCatcher, type MailCatcher } from './mailCatcher.js';
import { startSdkPage, type SdkPageServer } from './sdkPage.js';
import { startTlsFront, type TlsFront } from './startTlsFront.js';

const missing = chromiumMissing();
const skip = missing !== null && !chromiumRequired();
if (skip) console.warn(`[test/browser] SKIPPED: ${missing}. Set CI=1 or PASSKEYAUTH_REQUIRE_CHROMIUM=1 to make this a failure.`);

const GRACE = 'grace@example.com';

let stack: Stack;
let mail: MailCatcher;
let project: ProjectJson;
let pageServer: SdkPageServer;
let front: TlsFront;
let browser: Browser;
let page: BrowserPage;
/** Every URL the page requested, of any host. */
const requested: string[] = [];

type State = ReturnType<WebJsHelpers['state']>;
const state = (): Promise<State> => page.page.evaluate(() => window.webjs.state());

/** The CorbadoProvider of every mounted component reads the session config again (through the front), alongside the flow's calls. */
const withoutSessionConfig = (lines: string[]) => {
  const config = lines.filter((l) => l.endsWith('/v2/session-config → 200'));
  expect(config, 'the session config, once per mount').toEqual([`GET ${project.projectID}.${front.suffix}/v2/session-config → 200`]);
  return lines.filter((l) => !config.includes(l));
};

/** The page's API calls since the last flush, as `METHOD path → status` lines (the front's host named). */
function calls(exchanges: Exchange[]): string[] {
  return exchanges.map((e) => {
    const u = new URL(e.url);
    return `${e.method} ${u.host === new URL(project.frontendApiUrl).host ? '' : u.host}${u.pathname} → ${e.status}`;
  });
}

/** Waits until `expr` (JavaScript over the page's state `s`) holds. */
async function waitFor(what: string, expr: string): Promise<State> {
  try {
    await page.page.waitForFunction((e) => new Function('s', `return ${e}`)(window.webjs.state()) === true, expr, { timeout: 15_000 });
  } catch (err) {
    throw new Error(`${what}: ${(err as Error).message}\nstate: ${JSON.stringify(await state())}\n${page.log.join('\n')}`, { cause: err });
  }
  return state();
}

/** A tab with the web-js page for a project (a page per project: Corbado is a singleton). */
function openWebJsPage(p: ProjectJson, requests?: string[]): Promise<BrowserPage> {
  const url = `${pageServer.origin}/?${new URLSearchParams({ projectId: p.projectID, frontendApiUrlSuffix: front.suffix }).toString()}`;
  return openPage(browser, url, {
    ...(requests ? { requests } : {}),
    ready: (tab, log) =>
      tab.waitForFunction(() => window.webjsReady === true, undefined, { timeout: 15_000 }).catch((err: Error) => {
        throw new Error(`the web-js page did not start: ${err.message}\n${log.join('\n')}`, { cause: err });
      }),
  });
}

/** Signs up through mountAuthUI in `tab` (loaded): "Sign up", the email, "Create account", "Continue". */
async function signUpThroughUi(tab: BrowserPage, email: string): Promise<void> {
  await tab.page.evaluate(() => window.webjs.mountAuthUI());
  const ui = tab.page.locator('#corbado');
  await ui.getByText('No account?').waitFor({ timeout: 15_000 });
  await ui.getByText('Sign up', { exact: true }).click();
  await ui.getByText('Create your account').waitFor();
  await ui.locator('input#email').fill(email);
  await ui.getByRole('button', { name: 'Continue' }).click();
  await ui.getByRole('button', { name: 'Create account' }).click();
  await ui.getByText('Success!').waitFor();
  await ui.getByRole('button', { name: 'Continue' }).click();
  await tab.page.waitForFunction(() => window.webjs.state().isAuthenticated === true, undefined, { timeout: 15_000 });
}

describe.skipIf(skip)('@corbado/web-js 3.5.0 (mountAuthUI, mountPasskeyListUI) in Chromium against the gateway', () => {
  beforeAll(async () => {
    const missingNow = chromiumMissing();
    if (missingNow) throw new Error(missingNow);
    mail = await startMailCatcher();
    stack = await startStack({ smtpUrl: mail.smtpUrl, emailFrom: 'Passkey Test <no-reply@localhost>' });
    pageServer = await startSdkPage('webJsPage.ts');
    project = await stack.createProject('web-js', [pageServer.origin], ['--self-service', 'enabled']);
    front = await startTlsFront(stack.frontendUrl);
    // Chromium trusts the front's local CA as a developer's browser does (no --ignore-certificate-errors).
    browser = await launchChromium({ trustedCaPem: front.caPem });
    page = await openWebJsPage(project, requested);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await front?.close();
    await stack?.stop();
    await mail?.stop();
    await pageServer?.close();
  });

  afterEach(async (ctx) => {
    if (!page) return;
    await page.flush();
    if (ctx.task.result?.state === 'fail') {
      console.error(`[test/browser] "${ctx.task.name}" failed; screenshot ${await failureScreenshot(page, 'web-js', ctx.task.name)}`);
      if (page.log.length > 0) console.error(`[test/browser] page log for "${ctx.task.name}":\n${page.log.join('\n')}`);
      if (page.exchanges.length > 0) console.error(`[test/browser] API exchanges of "${ctx.task.name}":\n${formatExchanges(page.exchanges)}`);
    }
    page.log.length = 0;
    page.exchanges.length = 0;
  });

  it('Corbado.load reads the session config through https://<projectID>.<suffix>', async () => {
    expect(await page.page.evaluate(() => window.webjs.load())).toBe(true);
    await page.flush();
    expect(calls(page.exchanges)).toEqual([`GET ${project.projectID}.${front.suffix}/v2/session-config → 200`]);
    expect(await state()).toMatchObject({ isAuthenticated: false, sessionToken: null, errors: [] });
  });

  it('sign-up: mountAuthUI, "Sign up", the email, "Create account" (the passkey), "Continue" → logged in', async () => {
    await signUpThroughUi(page, GRACE);
    expect(await page.credentials()).toHaveLength(1);
    const s = await waitFor('logged in after the sign-up', 's.isAuthenticated === true && s.loggedIn === 1 && s.sessionToken !== null');
    expect(s.sessionToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(s.refreshToken).toMatch(/^rt_/);
    // A passkey proves no email address: the token lists it as pending and states no email as a fact.
    expect(s.user).toMatchObject({ sub: expect.stringMatching(/^usr-/), orig: '', email_verified: false, identifiers: [{ type: 'email', value: GRACE, status: 'pending' }] });
    expect(s.user).not.toHaveProperty('email');
    expect(s.cookie).toContain(`cbo_session_token=${s.sessionToken}`);
    // Host-only (the session config names no domain, and web-core's `domain=` without a value sets none): the page's host alone gets it.
    const [cookie] = (await page.page.context().cookies()).filter((c) => c.name === 'cbo_session_token');
    expect(cookie).toMatchObject({ domain: new URL(pageServer.origin).hostname, sameSite: 'Lax' });
    await page.flush();
    expect(withoutSessionConfig(calls(page.exchanges))).toEqual([
      `GET ${project.projectID}.${front.suffix}/v2/process-config → 200`,
      'POST /v2/auth/process/init → 200',
      'POST /v2/auth/signup/init → 200',
      'POST /v2/auth/passkey/append/start → 200',
      'POST /v2/auth/passkey/append/finish → 200',
      'POST /v2/auth/block/skip → 200',
    ]);
    // The application's backend accepts the session token.
    const node = new SDK(new Config(project.projectID, project.apiSecret, project.frontendApiUrl, project.backendApiUrl));
    await expect(node.sessions().validateToken(s.sessionToken!)).resolves.toEqual({ userId: s.user!.sub, fullName: expect.any(String) });
  });

  it('logout ends the session at the gateway', async () => {
    const before = await state();
    await page.page.evaluate(() => window.webjs.unmount());
    await page.page.evaluate(() => window.webjs.logout());
    expect(await state()).toMatchObject({ isAuthenticated: false, sessionToken: null });
    await page.flush();
    expect(calls(page.exchanges)).toEqual(['POST /v2/me/logout → 204']);
    const me = await fetch(`${project.frontendApiUrl}/v2/me`, { headers: { authorization: `Bearer ${before.refreshToken}`, 'x-corbado-projectid': project.projectID } });
    expect(me.status).toBe(401);
  });

  it('login: mountAuthUI offers the last identifier and its field takes the passkey (conditional UI) → logged in', async () => {
    const node = new SDK(new Config(project.projectID, project.apiSecret, project.frontendApiUrl, project.backendApiUrl));
    const { identifiers } = await node.identifiers().listByValueAndType(GRACE, 'email');
    const userId = identifiers[0]!.userID;
    const signCount = (await page.credentials())[0]!.signCount;
    await page.page.evaluate(() => window.webjs.mountAuthUI());
    const ui = page.page.locator('#corbado');
    // The completed sign-up left the last identifier: the login block offers it.
    await ui.getByText('Login with Passkey').waitFor({ timeout: 15_000 });
    expect(await ui.getByText(GRACE).isVisible()).toBe(true);
    // The email field has focus from the start, so the browser's passkey autofill (conditional UI)
    // is open, and the virtual authenticator answers it with Grace's passkey.
    const s = await waitFor('logged in with the passkey', 's.isAuthenticated === true && s.loggedIn === 2 && s.sessionToken !== null');
    expect(s.user).toMatchObject({ sub: userId, email_verified: false });
    expect(s.user).not.toHaveProperty('email');
    expect((await page.credentials())[0]!.signCount).toBeGreaterThan(signCount);
    await page.flush();
    expect(withoutSessionConfig(calls(page.exchanges))).toEqual([
      // A second process in the same page: process-config from the frontend API URL the first one named.
      'GET /v2/process-config → 200',
      'POST /v2/auth/process/init → 200',
      'POST /v2/auth/passkey/mediation/finish → 200',
    ]);
    // The page history still showed passkey-appended from the sign-up; process/init takes that as no preference.
    const init = page.exchanges.find((e) => e.url.endsWith('/v2/auth/process/init'))!;
    expect(JSON.parse(init.requestBody!).preferredBlock).toBe('passkey-appended');
    await expect(node.sessions().validateToken(s.sessionToken!)).resolves.toEqual({ userId, fullName: expect.any(String) });
    await page.page.evaluate(() => window.webjs.unmount());
  });

  it('passkey list: mountPasskeyListUI shows the passkey, and its delete button (confirmed) deletes it', async () => {
    const before = await state();
    expect(before.isAuthenticated, 'needs the login').toBe(true);
    await page.page.evaluate(() => window.webjs.mountPasskeyListUI());
    const ui = page.page.locator('#corbado');
    const cards = ui.locator('.cb-passkey-list-card');
    await cards.first().waitFor({ timeout: 15_000 });
    expect(await cards.count()).toBe(1);
    expect(await cards.first().innerText()).toContain('Created:');
    await ui.locator('.cb-passkey-list-delete').click();
    await ui.getByText('Are you sure you want to delete this passkey?').waitFor();
    await ui.getByRole('button', { name: 'Yes, delete' }).click();
    await cards.first().waitFor({ state: 'detached', timeout: 15_000 });
    await ui.getByRole('button', { name: 'Create a Passkey' }).waitFor();
    await page.flush();
    const lines = withoutSessionConfig(calls(page.exchanges));
    expect(lines[0]).toBe('GET /v2/me/passkeys → 200');
    expect(lines[1]).toMatch(/^DELETE \/v2\/me\/passkeys\/[\w-]+ → 200$/);
    expect(lines.slice(2).every((l) => l === 'GET /v2/me/passkeys → 200'), lines.join('\n')).toBe(true);
    // web-core 3.5.0 authenticates these calls with the refresh token.
    for (const e of page.exchanges.filter((x) => new URL(x.url).pathname.startsWith('/v2/me/passkeys'))) {
      expect(e.requestHeaders.authorization, `${e.method} ${e.url}`).toBe(`Bearer ${before.refreshToken}`);
    }
    // Gone at the gateway too (asked with the session token).
    const list = await fetch(`${project.frontendApiUrl}/v2/me/passkeys`, { headers: { authorization: `Bearer ${before.sessionToken}` } });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { passkeys: unknown[] }).passkeys).toEqual([]);
    // getPasskeys and getFullUser of the Corbado object agree.
    expect(await page.page.evaluate(() => window.webjs.getPasskeys())).toMatchObject({ ok: true, val: { passkeys: [] } });
    expect(await page.page.evaluate(() => window.webjs.getFullUser())).toMatchObject({ ok: true, val: { identifiers: [expect.objectContaining({ value: GRACE })] } });
    await page.page.evaluate(() => window.webjs.unmount());
  });

  it('passkey list: "Create a Passkey" appends one (F3/F4 with the refresh token) and the list shows it', async () => {
    const before = await state();
    expect(before.isAuthenticated, 'needs the login').toBe(true);
    await page.removeCredentials();
    await page.page.evaluate(() => window.webjs.mountPasskeyListUI());
    const ui = page.page.locator('#corbado');
    await ui.getByRole('button', { name: 'Create a Passkey' }).click();
    await ui.locator('.cb-passkey-list-card').first().waitFor({ timeout: 15_000 });
    expect(await page.credentials()).toHaveLength(1);
    await page.flush();
    const lines = withoutSessionConfig(calls(page.exchanges));
    expect(lines).toEqual(['GET /v2/me/passkeys → 200', 'POST /v2/me/passkeys/append/start → 200', 'POST /v2/me/passkeys/append/finish → 200', 'GET /v2/me/passkeys → 200']);
    for (const e of page.exchanges.filter((x) => new URL(x.url).pathname.startsWith('/v2/me/'))) {
      expect(e.requestHeaders.authorization, `${e.method} ${e.url}`).toBe(`Bearer ${before.refreshToken}`);
    }
    const listed = JSON.parse(page.exchanges.at(-1)!.responseBody) as { passkeys: { credentialID: string }[] };
    expect(listed.passkeys.map((k) => k.credentialID)).toEqual([(await page.credentials())[0]!.credentialIdBase64url]);
    await page.page.evaluate(() => window.webjs.unmount());
  });

  it('user UI: mountUserUI shows the account (name, email with its status, the passkeys) from GET /v2/me with the refresh token', async () => {
    const before = await state();
    expect(before.isAuthenticated, 'needs the login').toBe(true);
    const node = new SDK(new Config(project.projectID, project.apiSecret, project.frontendApiUrl, project.backendApiUrl));
    const { identifiers } = await node.identifiers().listByValueAndType(GRACE, 'email');
    const user = await node.users().get(identifiers[0]!.userID);
    await page.page.evaluate(() => window.webjs.mountUserUI());
    const ui = page.page.locator('#corbado');
    await ui.getByText('Your Account').waitFor({ timeout: 15_000 });
    // The identifiers are shown as read-only fields.
    await page.page.waitForFunction((email) => [...document.querySelectorAll('#corbado input')].some((i) => (i as HTMLInputElement).value === email), GRACE, { timeout: 15_000 });
    const text = await ui.innerText();
    expect(text).toContain('Email');
    // The screen labels an identifier "verified" only for that status and "pending" for any other.
    const status = ((await node.identifiers().listByValueAndType(GRACE, 'email')).identifiers[0]!.status as string);
    expect(text).toContain(status === 'verified' ? 'verified' : 'pending');
    if (user.fullName) expect(text).toContain(user.fullName);
    await page.flush();
    const me = page.exchanges.filter((e) => new URL(e.url).pathname === '/v2/me');
    expect(me.map((e) => `${e.method} ${e.status}`)).toEqual(['GET 200']);
    expect(me[0]!.requestHeaders.authorization).toBe(`Bearer ${before.refreshToken}`);
    const body = JSON.parse(me[0]!.responseBody) as { id: string; identifiers: { value: string; status: string }[] };
    expect(body.id).toBe(user.userID);
    expect(body.identifiers.map((i) => i.value)).toEqual([GRACE]);
    await page.page.evaluate(() => window.webjs.unmount());
  });

  it('mountLoginUI after a logout: the passkey logs in again (conditional UI); mountSignUpUI offers the sign-up form', async () => {
    await page.page.evaluate(() => window.webjs.logout());
    const loggedInBefore = (await state()).loggedIn;
    expect((await state()).isAuthenticated).toBe(false);
    await page.page.evaluate(() => window.webjs.mountLoginUI());
    const ui = page.page.locator('#corbado');
    await ui.getByText('Login with Passkey').waitFor({ timeout: 15_000 });
    const s = await waitFor('logged in through mountLoginUI', `s.isAuthenticated === true && s.loggedIn === ${loggedInBefore + 1} && s.sessionToken !== null`);
    expect(s.user).toMatchObject({ email_verified: false, identifiers: [{ type: 'email', value: GRACE, status: 'pending' }] });
    await page.flush();
    expect(withoutSessionConfig(calls(page.exchanges)).filter((l) => !l.includes('/v2/me/'))).toEqual(['GET /v2/process-config → 200', 'POST /v2/auth/process/init → 200', 'POST /v2/auth/passkey/mediation/finish → 200']);
    await page.page.evaluate(() => window.webjs.unmount());

    await page.page.evaluate(() => window.webjs.logout());
    // Without a passkey in the authenticator, the login block's passkey autofill cannot sign Grace in again at once.
    await page.removeCredentials();
    await page.page.evaluate(() => window.webjs.mountSignUpUI());
    // web-js 3.5.0 starts both at the login block; the sign-up is its alternative.
    await ui.getByText('Sign up', { exact: true }).click();
    await ui.getByText('Create your account').waitFor();
    expect(await ui.locator('input#email').count()).toBe(1);
    await page.page.evaluate(() => window.webjs.unmount());
  });

  it('typed login without the passkey at hand: the email, then "Continue with email" and the code from the mail → logged in', async () => {
    // The last test left Grace logged out and the authenticator without her passkey.
    expect((await state()).isAuthenticated).toBe(false);
    // Her passkey-only sign-up left the address unproven, and since #29 a typed login finds only
    // proven or vouched-for addresses: the application vouches for it (node SDK).
    const node = new SDK(new Config(project.projectID, project.apiSecret, project.frontendApiUrl, project.backendApiUrl));
    const { identifiers } = await node.identifiers().listByValueAndType(GRACE, 'email');
    await node.identifiers().updateStatus(identifiers[0]!.userID, identifiers[0]!.identifierID, 'verified');
    expect(await page.credentials()).toEqual([]);
    const loggedInBefore = (await state()).loggedIn;
    await page.page.evaluate(() => window.webjs.mountAuthUI());
    const ui = page.page.locator('#corbado');
    // The page's history still shows the sign-up form the last test switched to: its "Log in" goes back.
    await ui.getByText('Create your account').waitFor({ timeout: 15_000 });
    await ui.getByText('Log in', { exact: true }).click();
    // The login block offers the last identifier; the user types another way in.
    await ui.getByText('Switch account').click();
    // Our login-init allows email addresses and usernames: one field for both.
    await ui.locator('input#username').fill(GRACE);
    const seen = await mail.seen();
    await ui.getByRole('button', { name: 'Continue' }).click();
    // passkey-verify starts the passkey login at once; without the passkey it fails (or the user
    // gives up waiting): either screen offers the code instead.
    await ui.getByRole('button', { name: /Use email verification|Continue with email/ }).click();
    await ui.getByText('Enter code to log in').waitFor({ timeout: 15_000 });
    const code = await mail.codeFor(GRACE, seen);
    await ui.locator('.cb-otp-input-container input').first().click();
    await page.page.keyboard.type(code);
    const s = await waitFor('logged in with the code', `s.isAuthenticated === true && s.loggedIn === ${loggedInBefore + 1} && s.sessionToken !== null`);
    // The code proved the address: from now on the token states it.
    expect(s.user).toMatchObject({ email: GRACE, email_verified: true, orig: GRACE, identifiers: [{ type: 'email', value: GRACE, status: 'verified' }] });
    await page.flush();
    const lines = withoutSessionConfig(calls(page.exchanges)).filter((l) => !l.includes('/v2/me/'));
    expect(lines.slice(0, 4)).toEqual(['GET /v2/auth/process → 200', 'POST /v2/auth/process/init → 200', 'POST /v2/auth/login/init → 200', 'POST /v2/auth/passkey/login/start → 200']);
    // The SDK reports the failed or abandoned passkey login, then asks for the code, and sends it.
    const events = page.exchanges.filter((e) => new URL(e.url).pathname === '/v2/auth/events');
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      expect(e.status).toBe(204);
      expect(['login-error', 'login-explicit-abort']).toContain(JSON.parse(e.requestBody!).eventType);
    }
    expect(lines.slice(-2)).toEqual(['POST /v2/auth/identifier/verify/start → 200', 'POST /v2/auth/identifier/verify/finish → 200']);
    await page.page.evaluate(() => window.webjs.unmount());
  });

  it('the page called no Corbado host (telemetry is off); beside the API only the stylesheet\'s Google Fonts', () => {
    const hosts = new Set(requested.map((u) => new URL(u).host));
    const ours = [new URL(pageServer.origin).host, `${project.projectID}.${front.suffix}`, new URL(project.frontendApiUrl).host];
    expect(ours.every((h) => hosts.has(h)), [...hosts].join(', ')).toBe(true);
    expect([...hosts].filter((h) => /corbado/i.test(h))).toEqual([]);
    // @corbado/shared-ui's stylesheet @imports its fonts from Google Fonts (not the SDK's telemetry).
    expect([...hosts].filter((h) => !ours.includes(h))).toEqual(['fonts.googleapis.com']);
  });

  describe('session refresh (web-core refreshes with the refresh token of the sign-in, and never stores a new one)', () => {
    /** A project with 60-second session tokens: web-core refreshes at each 10-second check, as less than 60 s are left. */
    async function refreshingProject(name: string, rotation: 'rotate' | 'keep'): Promise<ProjectJson> {
      const p = await stack.createProject(name, [pageServer.origin], ['--self-service', 'enabled']);
      const admin = await openProjectAdmin({ mongodbUri: stack.env.MONGODB_URI, masterKey: parseMasterKey(stack.env.MASTER_KEY), urls: { frontendApiUrl: stack.env.FRONTEND_API_URL, backendApiUrl: stack.env.BACKEND_API_URL } });
      try {
        await updateSessionSettings(admin.deps, p.projectID, { sessionLifetimeSeconds: 60, refreshTokenRotation: rotation });
      } finally {
        await admin.close();
      }
      return p;
    }

    /** Waits (up to 45 s: two of web-core's 10-second checks and then some) until the tab has made `n` refresh calls. */
    async function refreshes(tab: BrowserPage, n: number): Promise<Exchange[]> {
      const deadline = Date.now() + 45_000;
      for (;;) {
        await tab.flush();
        const seen = tab.exchanges.filter((e) => new URL(e.url).pathname === '/v2/me/refresh');
        if (seen.length >= n) return seen;
        if (Date.now() > deadline) throw new Error(`${seen.length} refresh calls, expected ${n}\n${formatExchanges(tab.exchanges)}`);
        await tab.page.waitForTimeout(500);
      }
    }

    it('with --refresh-rotation keep, every refresh works and the user stays logged in', async () => {
      const p = await refreshingProject('web-js-keep', 'keep');
      const tab = await openWebJsPage(p);
      try {
        expect(await tab.page.evaluate(() => window.webjs.load())).toBe(true);
        await signUpThroughUi(tab, 'kept@example.com');
        const first = await tab.page.evaluate(() => window.webjs.state());
        expect(first.isAuthenticated).toBe(true);
        const calls2 = await refreshes(tab, 2);
        expect(calls2.map((e) => e.status)).toEqual([200, 200]);
        // Both with the refresh token of the sign-up, answered again.
        for (const e of calls2) {
          expect(e.requestHeaders.authorization).toBe(`Bearer ${first.refreshToken}`);
          expect(JSON.parse(e.responseBody)).toMatchObject({ refreshToken: first.refreshToken, sessionToken: expect.any(String) });
        }
        const after = await tab.page.evaluate(() => window.webjs.state());
        expect(after.isAuthenticated).toBe(true);
        expect(after.sessionToken).not.toBe(first.sessionToken);
        const node = new SDK(new Config(p.projectID, p.apiSecret, p.frontendApiUrl, p.backendApiUrl));
        await expect(node.sessions().validateToken(after.sessionToken!)).resolves.toMatchObject({ userId: after.user!.sub });
      } finally {
        await tab.close();
      }
    }, 90_000);

    it('with rotation (the default), the second refresh presents the spent token: the session ends and the user is logged out', async () => {
      const p = await refreshingProject('web-js-rotate', 'rotate');
      const tab = await openWebJsPage(p);
      try {
        expect(await tab.page.evaluate(() => window.webjs.load())).toBe(true);
        await signUpThroughUi(tab, 'rotated@example.com');
        const first = await tab.page.evaluate(() => window.webjs.state());
        expect(first.isAuthenticated).toBe(true);
        const calls2 = await refreshes(tab, 2);
        expect(calls2.map((e) => e.status)).toEqual([200, 401]);
        expect(calls2.map((e) => e.requestHeaders.authorization)).toEqual([`Bearer ${first.refreshToken}`, `Bearer ${first.refreshToken}`]);
        expect(JSON.parse(calls2[1]!.responseBody).error).toMatchObject({ type: 'refresh_token_reused' });
        await tab.page.waitForFunction(() => window.webjs.state().isAuthenticated === false, undefined, { timeout: 15_000 });
      } finally {
        await tab.close();
      }
    }, 90_000);
  });
});
