/**
 * Drop-in test of the published UI components for connect: @corbado/connect-react 0.2.4-alpha.0
 * (CorbadoConnectAppend, CorbadoConnectLogin, CorbadoConnectPasskeyList inside
 * CorbadoConnectProvider, with the @corbado/web-core 2.18.0 it ships with), bundled unchanged with
 * react 18 into a page (page/connectReactPage.ts) and clicked through in headless Chromium with a
 * CDP virtual platform authenticator, against the real stack. The test plays the application's
 * server: the components ask the page for connect tokens, and the test creates them with the
 * backend API (POST /v2/connectTokens, HTTP Basic).
 *
 * How the SDK reaches the gateway: web-core 2.x's ConnectService has no custom-domain option, so
 * its init calls go to `https://<projectID>.<frontendApiUrlSuffix>`; the provider gets the suffix
 * of the TLS front of `npm start` (deploy/local/tls, started by startTlsFront.ts with a local CA of
 * its own) that relays each connection unchanged to the gateway, and Chromium trusts that CA. After init the SDK uses the process's frontendApiUrl. The page
 * is http://localhost:<port>/ (RP ID `localhost`), the one origin the project allows.
 *
 * One browser profile, one user, in order: append (no completionType is sent), one-tap login (the
 * last login the append stored), typed login, autofill login, passkey list with delete and relist
 * (the same list token, no 409), and autofill with the passkey deleted on the server (404, the
 * component falls back). Needs Chromium like connectSdk.test.ts (skipped without it unless CI or
 * PASSKEYAUTH_REQUIRE_CHROMIUM=1), and certutil to make Chromium trust the front's CA.
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';
import { chromiumMissing, chromiumRequired, failureScreenshot, formatExchanges, launchChromium, openPage, pageLog, type BrowserPage, type Exchange } from './chromium.js';
import type { ConnectEvent } from './page/connectReactPage.js';
import { startSdkPage, type SdkPageServer } from './sdkPage.js';
import { checkShape, CONNECT_RESPONSE_TYPES, loadSdkTypes } from './sdkTypes.js';
import { startTlsFront, type TlsFront } from './startTlsFront.js';

const missing = chromiumMissing();
const skip = missing !== null && !chromiumRequired();
if (skip) console.warn(`[test/browser] SKIPPED: ${missing}. Set CI=1 or PASSKEYAUTH_REQUIRE_CHROMIUM=1 to make this a failure.`);

const ALICE = 'alice@example.com';
const BOB = 'bob@example.com';
const STEP_MS = 15_000;
type Component = 'append' | 'login' | 'passkey-list';

let stack: Stack;
let project: ProjectJson;
let pageServer: SdkPageServer;
let front: TlsFront;
let browser: Browser;
let app: BrowserPage;
/** The connect tokens the components asked for, in order. */
const issued: { type: string; id: string; secret: string }[] = [];
/** Every API exchange of the run, with its test. */
const everything: (Exchange & { test: string })[] = [];

/** The application's server: creates a connect token for its signed-in user. */
async function createConnectToken(identifier: string, type: string): Promise<string> {
  const body = { type, data: type === 'passkey-append' ? { identifier, displayName: 'Test User' } : { identifier } };
  const res = await fetch(`${stack.backendUrl}/v2/connectTokens`, { method: 'POST', headers: { authorization: basic(project), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST /v2/connectTokens ${JSON.stringify(body)} → ${res.status} ${text}`);
  const token = JSON.parse(text) as { id: string; secret: string };
  issued.push({ type, id: token.id, secret: token.secret });
  return token.secret;
}

/** Opens the page in a new browser context (a device of its own: storage, authenticator) whose signed-in user is `identifier`. */
async function openDevice(identifier: string): Promise<BrowserPage> {
  const device = await openPage(browser, pageUrl(''), {
    ready: (page, log) =>
      page.waitForFunction(() => window.connectReactReady === true, undefined, { timeout: STEP_MS }).catch((err: Error) => {
        throw new Error(`the connect-react page did not start: ${err.message}\n${log.join('\n')}`, { cause: err });
      }),
  });
  await device.page.exposeFunction('connectToken', (type: string) => createConnectToken(identifier, type));
  return device;
}

const pageUrl = (component: Component | '') =>
  `${pageServer.origin}/?${new URLSearchParams({ projectId: project.projectID, frontendApiUrlSuffix: front.suffix, component }).toString()}`;

/** Loads the page with one component (localStorage and the authenticator stay), after the previous step's traffic is read. */
async function show(component: Component, device = app) {
  await device.flush();
  device.exchanges.length = 0;
  await device.page.goto(pageUrl(component));
  await device.page.waitForFunction(() => window.connectReactReady === true, undefined, { timeout: STEP_MS });
}

/** Waits for the component's callback `name` and returns its calls. */
async function callback(name: string, what: string, device = app): Promise<ConnectEvent[]> {
  await device.page.waitForFunction((n) => window.connectEvents.some((e) => e.name === n), name, { timeout: STEP_MS }).catch(async (err: Error) => {
    const events = await device.page.evaluate(() => window.connectEvents).catch(() => []);
    throw new Error(`${what}: no ${name} callback (${err.message}); callbacks so far ${JSON.stringify(events)}${pageLog(device)}`, { cause: err });
  });
  return (await device.page.evaluate(() => window.connectEvents)).filter((e) => e.name === name);
}

const events = () => app.page.evaluate(() => window.connectEvents);

/** The page's calls of one API path since show(), with their answers. */
async function calls(path: string, device = app): Promise<Exchange[]> {
  await device.flush();
  return device.exchanges.filter((e) => new URL(e.url).pathname === path);
}

/** Every call since show() as `METHOD path → status` (host shown when it is the front's). */
async function traffic(): Promise<string[]> {
  await app.flush();
  return app.exchanges.map((e) => `${e.method} ${new URL(e.url).host === new URL(project.frontendApiUrl).host ? '' : new URL(e.url).host}${new URL(e.url).pathname} → ${e.status}`);
}

async function expectSessionOf(session: unknown) {
  expect(session, 'onComplete gets the session token').toEqual(expect.any(String));
  const res = await fetch(`${project.frontendApiUrl}/.well-known/jwks`, { headers: { 'X-Corbado-ProjectID': project.projectID } });
  const keys = createLocalJWKSet((await res.json()) as JSONWebKeySet);
  const { payload } = await jwtVerify(session as string, keys, { issuer: project.frontendApiUrl, audience: project.projectID, algorithms: ['ES256'] });
  expect(payload).toMatchObject({ kind: 'session', sub: expect.stringMatching(/^usr-[0-9]+$/) });
}

/** The last passkey operation web-core 2.x keeps for the one-tap login (null: none). */
const lastLogin = () => app.page.evaluate((key) => localStorage.getItem(key), `cbo_connect_last_login-${project.projectID}`);
const forgetLastLogin = () => app.page.evaluate((key) => localStorage.removeItem(key), `cbo_connect_last_login-${project.projectID}`);

describe.skipIf(skip)('@corbado/connect-react 0.2.4-alpha.0 in Chromium against the gateway', () => {
  beforeAll(async () => {
    const missingNow = chromiumMissing();
    if (missingNow) throw new Error(missingNow);
    stack = await startStack();
    pageServer = await startSdkPage('connectReactPage.ts');
    project = await stack.createProject('connect-react', [pageServer.origin]);
    front = await startTlsFront(stack.frontendUrl);
    // Chromium trusts the front's local CA as a developer's browser does (no --ignore-certificate-errors).
    browser = await launchChromium({ trustedCaPem: front.caPem });
    app = await openPage(browser, pageUrl(''), {
      ready: (page, log) =>
        page.waitForFunction(() => window.connectReactReady === true, undefined, { timeout: STEP_MS }).catch((err: Error) => {
          throw new Error(`the connect-react page did not start: ${err.message}\n${log.join('\n')}`, { cause: err });
        }),
    });
    await app.page.exposeFunction('connectToken', (type: string) => createConnectToken(ALICE, type));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await front?.close();
    await stack?.stop();
    await pageServer?.close();
  });

  afterEach(async (ctx) => {
    if (!app) return;
    await app.flush();
    if (ctx.task.result?.state === 'fail') {
      console.error(`[test/browser] "${ctx.task.name}" failed; screenshot ${await failureScreenshot(app, 'connect-react', ctx.task.name)}`);
      if (app.log.length > 0) console.error(`[test/browser] page log for "${ctx.task.name}":\n${app.log.join('\n')}`);
      if (app.exchanges.length > 0) console.error(`[test/browser] API exchanges of "${ctx.task.name}":\n${formatExchanges(app.exchanges)}`);
    }
    app.log.length = 0;
    everything.push(...app.exchanges.map((e) => ({ test: ctx.task.name, ...e })));
    app.exchanges.length = 0;
  });

  it('CorbadoConnectAppend appends a passkey with a backend-created passkey-append token; append/finish carries no completionType', async () => {
    await show('append');
    const activate = app.page.getByRole('button', { name: 'Activate passkey' });
    await activate.waitFor({ state: 'visible', timeout: STEP_MS });
    expect(issued.map((t) => t.type)).toEqual(['passkey-append']);
    await activate.click();
    const proceed = app.page.getByRole('button', { name: 'Continue' });
    await proceed.waitFor({ state: 'visible', timeout: STEP_MS });
    await proceed.click();
    await callback('onComplete', 'append');

    const [finish] = await calls('/v2/connect/append/finish');
    expect(finish?.status, 'append/finish answered').toBe(200);
    expect(JSON.parse(finish!.requestBody ?? '{}'), 'web-core 2.x sends only the attestation').not.toHaveProperty('completionType');
    expect(JSON.parse(finish!.responseBody).passkeyOperation).toMatchObject({ operationType: 'append', identifierValue: ALICE, identifierType: 'email' });
    // The first call went through the front to https://<projectID>.localhost:<port>, the rest straight to the gateway.
    expect(await traffic()).toEqual([`POST ${project.projectID}.${front.suffix}/v2/connect/append/init → 200`, 'POST /v2/connect/append/start → 200', 'POST /v2/connect/append/finish → 200']);
    // Only the TLS front of npm start listens on that port: it relayed the call to the gateway, whose answer names the project's frontend API.
    const [init] = await calls('/v2/connect/append/init');
    expect(new URL(init!.url).host).toBe(`${project.projectID}.${front.suffix}`);
    expect(JSON.parse(init!.responseBody)).toMatchObject({ frontendApiUrl: project.frontendApiUrl, appendAllowed: true, processID: expect.any(String) });
    expect(front.refused).toEqual([]);
    const creds = await app.credentials();
    expect(creds).toHaveLength(1);
    expect(creds[0]).toMatchObject({ rpId: 'localhost', isResidentCredential: true });
    const tokens = await fetch(`${stack.backendUrl}/v2/connectTokens?filter[]=identifier:eq:${ALICE}`, { headers: { authorization: basic(project) } });
    expect(((await tokens.json()) as { connectTokens: { connectTokenStatus: string }[] }).connectTokens.map((t) => t.connectTokenStatus)).toEqual(['consumed']);
    expect(JSON.parse((await lastLogin()) ?? 'null'), 'the SDK keeps the append as the last login').toMatchObject({ identifierValue: ALICE, operationType: 'append' });
    expect(app.log.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });

  it('CorbadoConnectLogin one-tap: "Login with passkey" for the remembered user logs in', async () => {
    expect(await lastLogin(), 'needs the append').not.toBeNull();
    await show('login');
    const oneTap = app.page.locator('.cb-passkey-button');
    await oneTap.waitFor({ state: 'visible', timeout: STEP_MS });
    await expect(oneTap.textContent()).resolves.toContain(ALICE);
    await oneTap.click();
    const [done] = await callback('onComplete', 'one-tap login');
    await expectSessionOf(done!.args[0]);
    const [start] = await calls('/v2/connect/login/start');
    expect(JSON.parse(start!.requestBody ?? '{}')).toMatchObject({ identifier: ALICE, source: 'one-tap' });
    expect((await calls('/v2/connect/login/finish')).map((e) => e.status)).toEqual([200]);
    expect((await events()).filter((e) => e.name === 'onFallback')).toEqual([]);
  });

  it('CorbadoConnectLogin typed: the identifier typed into the component, then the passkey', async () => {
    await forgetLastLogin();
    // The login screen starts passkey autofill at once; with presence off the authenticator leaves
    // that request open (as a user who ignores the suggestion), and answers the typed login's.
    await app.setPresence(false);
    await show('login');
    const email = app.page.locator('input#email');
    await email.waitFor({ state: 'visible', timeout: STEP_MS });
    await app.page.waitForLoadState('networkidle');
    await app.setPresence(true);
    await email.fill(ALICE);
    await app.page.getByRole('button', { name: 'Login' }).click();
    const [done] = await callback('onComplete', 'typed login');
    await expectSessionOf(done!.args[0]);
    const [start] = await calls('/v2/connect/login/start');
    expect(JSON.parse(start!.requestBody ?? '{}')).toMatchObject({ identifier: ALICE, source: 'text-field' });
    const finishes = await calls('/v2/connect/login/finish');
    expect(finishes.map((e) => [e.status, JSON.parse(e.requestBody ?? '{}').isConditionalUI])).toEqual([[200, false]]);
  });

  it('CorbadoConnectLogin autofill (conditional UI): the passkey suggested in the field logs in without login/start', async () => {
    await forgetLastLogin();
    await show('login');
    const [done] = await callback('onComplete', 'autofill login');
    await expectSessionOf(done!.args[0]);
    expect(await calls('/v2/connect/login/start')).toEqual([]);
    const finishes = await calls('/v2/connect/login/finish');
    expect(finishes.map((e) => [e.status, JSON.parse(e.requestBody ?? '{}').isConditionalUI])).toEqual([[200, true]]);
    expect(JSON.parse(finishes[0]!.responseBody).passkeyOperation).toMatchObject({ operationType: 'verify', identifierValue: ALICE });
  });

  it('CorbadoConnectPasskeyList lists, deletes, and lists again with the same passkey-list token (no 409)', async () => {
    issued.length = 0;
    await show('passkey-list');
    const item = app.page.locator('.cb-passkey-list-item');
    await item.first().waitFor({ state: 'visible', timeout: STEP_MS });
    expect(await item.count()).toBe(1);
    await app.page.locator('.cb-passkey-list-item-delete-icon .cb-link-button').click();
    const confirm = app.page.locator('button.cb-modal-button-primary');
    await confirm.waitFor({ state: 'visible', timeout: STEP_MS });
    await confirm.click();
    await app.page.getByText('There is currently no passkey saved for this account').waitFor({ state: 'visible', timeout: STEP_MS });

    expect(issued.map((t) => t.type)).toEqual(['passkey-list', 'passkey-delete']);
    const lists = await calls('/v2/connect/manage/list');
    expect(lists.map((e) => e.status), 'manage/list, before and after the delete').toEqual([200, 200]);
    expect(lists.map((e) => JSON.parse(e.requestBody ?? '{}').connectToken), 'both lists with the one list token').toEqual([issued[0]!.secret, issued[0]!.secret]);
    expect(JSON.parse(lists[1]!.responseBody).passkeys).toEqual([]);
    expect((await calls('/v2/connect/manage/delete')).map((e) => e.status)).toEqual([200]);
    expect(app.exchanges.filter((e) => e.status >= 400), 'no refused call').toEqual([]);
    expect(await app.page.locator('.cb-error-notification').count(), 'no error notification').toBe(0);
    // The authenticator still holds the passkey; only the server forgot it.
    expect(await app.credentials()).toHaveLength(1);
    // web-core 2.x heals its one-tap hint when the list is empty.
    expect(await lastLogin()).toBeNull();
  });

  it('CorbadoConnectLogin autofill with the passkey deleted on the server: login/finish 404, the component falls back', async () => {
    expect(await app.credentials(), 'needs the passkey deleted by the list').toHaveLength(1);
    await show('login');
    const [fallback] = await callback('onFallback', 'autofill with a deleted passkey');
    expect(fallback!.args[1], 'the fallback message the component gives').toEqual(expect.any(String));
    const finishes = await calls('/v2/connect/login/finish');
    expect(finishes.map((e) => e.status)).toEqual([404]);
    expect(JSON.parse(finishes[0]!.responseBody)).toMatchObject({ httpStatusCode: 404, error: { type: 'credential_deleted' } });
    expect((await events()).filter((e) => e.name === 'onComplete')).toEqual([]);
    expect(app.log.filter((l) => l.startsWith('pageerror')), 'no uncaught error').toEqual([]);
  });

  it('CorbadoConnectLogin typed with an identifier that has no passkey: login/start answers the fallback, the component calls onFallback with it', async () => {
    await app.setPresence(false);
    await show('login');
    const email = app.page.locator('input#email');
    await email.waitFor({ state: 'visible', timeout: STEP_MS });
    await email.fill('nobody@example.com');
    await app.page.getByRole('button', { name: 'Login' }).click();
    const [fallback] = await callback('onFallback', 'typed login without passkey');
    expect(fallback!.args[0]).toBe('nobody@example.com');
    const [start] = await calls('/v2/connect/login/start');
    expect(start!.status).toBe(200);
    expect(JSON.parse(start!.responseBody)).toMatchObject({ assertionOptions: '', fallbackOperationError: { initFallback: true, identifier: 'nobody@example.com' } });
    expect(await calls('/v2/connect/login/finish')).toEqual([]);
    await app.setPresence(true);
  });

  it('CorbadoConnectPasskeyList "Add a passkey" appends (forced) and lists again with the same list token', async () => {
    issued.length = 0;
    await show('passkey-list');
    await app.page.getByText('There is currently no passkey saved for this account').waitFor({ state: 'visible', timeout: STEP_MS });
    await app.page.locator('.cb-passkey-list-append-button').click();
    await app.page.locator('.cb-passkey-list-item').first().waitFor({ state: 'visible', timeout: STEP_MS });
    expect(await app.page.locator('.cb-passkey-list-item').count()).toBe(1);
    expect(issued.map((t) => t.type)).toEqual(['passkey-list', 'passkey-append']);
    const lists = await calls('/v2/connect/manage/list');
    expect(lists.map((e) => [e.status, JSON.parse(e.requestBody ?? '{}').connectToken])).toEqual([
      [200, issued[0]!.secret],
      [200, issued[0]!.secret],
    ]);
    const [start] = await calls('/v2/connect/append/start');
    expect(JSON.parse(start!.requestBody ?? '{}')).toMatchObject({ forcePasskeyAppend: true });
    expect((await calls('/v2/connect/append/finish')).map((e) => e.status)).toEqual([200]);
    expect(app.exchanges.filter((e) => e.status >= 400), 'no refused call').toEqual([]);
  });

  it('CorbadoConnectAppend "Skip" on another device: onSkip, and the explicit abort reaches /v2/connect/events', async () => {
    const device = await openDevice(BOB);
    try {
      await show('append', device);
      await device.page.locator('.cb-append-skip').waitFor({ state: 'visible', timeout: STEP_MS });
      await device.page.locator('.cb-append-skip').click();
      await callback('onSkip', 'append skip', device);
      const recorded = await calls('/v2/connect/events', device);
      expect(recorded.map((e) => [e.status, JSON.parse(e.requestBody ?? '{}').eventType])).toEqual([[204, 'append-explicit-abort']]);
      expect(await calls('/v2/connect/append/finish', device)).toEqual([]);
      expect(await device.credentials()).toEqual([]);
    } finally {
      await device.flush();
      everything.push(...device.exchanges.map((e) => ({ test: 'append skip', ...e })));
      await device.close();
    }
  });

  it('every 200 answer connect-react received has the fields and values web-core 2.18.0 declares, and nothing was refused but the deleted passkey', () => {
    // The web-core connect-react resolves (its own nested copy), not the 3.x of the project.
    const require = createRequire(import.meta.url);
    const webCore = dirname(require.resolve('@corbado/web-core/package.json', { paths: [dirname(require.resolve('@corbado/connect-react'))] }));
    expect((require(`${webCore}/package.json`) as { version: string }).version).toBe('2.18.0');
    const types = loadSdkTypes(webCore);
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const ex of everything) {
      const path = new URL(ex.url).pathname;
      const type = CONNECT_RESPONSE_TYPES[path];
      if (!type || ex.status !== 200) continue;
      seen.add(path);
      problems.push(...checkShape(types, JSON.parse(ex.responseBody), type).problems.map((p) => `${ex.test}: POST ${path}: ${p}`));
    }
    expect(problems).toEqual([]);
    expect([...seen].sort()).toEqual(Object.keys(CONNECT_RESPONSE_TYPES).sort());
    const refused = everything.filter((e) => e.status >= 400).map((e) => `${new URL(e.url).pathname} → ${e.status}`);
    expect(refused).toEqual(['/v2/connect/login/finish → 404']);
  });
});
