/**
 * The demo app (examples/demo) in a real browser: headless Debian Chromium with a CDP virtual
 * platform authenticator, the real stack, the demo server on http://localhost:<port>, one-time codes
 * read from the local mail catcher (maildev, through its REST API, as `npm start` runs it).
 *
 * The scenarios run in order, for one user (Alice): passkey sign-up, email verification (F11),
 * logout, passkey login with a typed identifier, conditional UI, a second passkey on a second
 * device (another browser context), deleting it, and conditional UI with the deleted passkey. Then,
 * each in a fresh browser context: the email-OTP login of a user without passkeys and the sign-up
 * with a code, the connect flows page, and the backend-API page (B2–B7 run by the demo server).
 *
 * The virtual authenticator answers a conditional (autofill) request by itself, with a credential
 * it holds for the RP, if its user presence is on when the page makes the request; a request made
 * while presence is off stays unanswered for good (turning presence on or focusing the field later
 * does not change that). The login pages start autofill on load, so the tests switch presence off
 * before landing on a login page that must stay there, let the page make its request
 * (settleAutofill), and turn presence back on: a typed login then also checks that the page aborts
 * its pending autofill request before the modal one (Chromium refuses a second request otherwise).
 * For an autofill login, the tests reload the page with presence on.
 *
 * Screenshots: every step → test-artifacts/browser/demo-NN-<step>.png (BROWSER_SCREENSHOTS=0
 * turns them off), every failed test → test-artifacts/browser/demo-FAILED-<test>.png.
 * Needs Chromium like connectSdk.test.ts (skipped without it unless CI or
 * PASSKEYAUTH_REQUIRE_CHROMIUM=1).
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { basic, freePort, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';
import { ARTIFACTS_DIR, chromiumMissing, chromiumRequired, failureScreenshot, formatExchanges, launchChromium, openPage, pageLog, type BrowserPage, type Credential } from './chromium.js';
import { startMailCatcher, type MailCatcher } from './mailCatcher.js';

const missing = chromiumMissing();
const skip = missing !== null && !chromiumRequired();
if (skip) console.warn(`[test/browser] SKIPPED: ${missing}. Set CI=1 or PASSKEYAUTH_REQUIRE_CHROMIUM=1 to make this a failure.`);

mkdirSync(ARTIFACTS_DIR, { recursive: true });
const SCREENSHOTS = process.env.BROWSER_SCREENSHOTS !== '0';
const ALICE = { email: 'alice@example.com', name: 'Alice Example' };
const BOB = { email: 'bob@example.com', name: 'Bob Builder' };
const CAROL = { email: 'carol@example.com', password: 'correct horse battery staple' };
/** How long the page may take for one step (a ceremony plus a few API calls). */
const STEP_MS = 10_000;

type Demo = { url: string; close(): Promise<void> };

let stack: Stack;
let mail: MailCatcher;
/** The self-service project: the sign-up, login and account pages (and Bob, created through its backend API). */
let project: ProjectJson;
/** The connect project (self-service off): the connect and backend-API pages. */
let connectProject: ProjectJson;
let demo: Demo;
let browser: Browser;
/** Alice's tab. */
let main: BrowserPage;
/** Alice's second device (another browser profile). */
let device2: BrowserPage;
/** The tab the current test works in (for failure screenshots and logs). */
let current: BrowserPage | undefined;
let step = 0;

/** What the scenarios learned about Alice's passkeys. */
const alice = {
  /** data-id of the sign-up passkey in ul#passkeys. */
  firstPasskeyId: undefined as string | undefined,
  firstCredential: undefined as Credential | undefined,
  secondPasskeyId: undefined as string | undefined,
  secondCredential: undefined as Credential | undefined,
  deletedPasskeyId: undefined as string | undefined,
};

/** Saves the numbered screenshot of a step of the happy path. */
async function shot(p: BrowserPage, name: string) {
  step++;
  if (SCREENSHOTS) await p.screenshot(join(ARTIFACTS_DIR, `demo-${String(step).padStart(2, '0')}-${name}.png`));
}

const pathOf = (p: BrowserPage) => new URL(p.page.url()).pathname;

/** The page's #status and #error (or the given selectors), URL and log, for assertion messages. */
async function describePage(p: BrowserPage, selectors = ['#status', '#error']): Promise<string> {
  const parts = [`url ${p.page.url()}`];
  for (const sel of selectors) {
    const t = await p.page
      .locator(sel)
      .first()
      .innerText({ timeout: 500 })
      .catch(() => '(absent)');
    parts.push(`${sel}: ${JSON.stringify(t)}`);
  }
  return `${parts.join('; ')}${pageLog(p)}`;
}

async function waitForPath(p: BrowserPage, path: string, what: string, selectors?: string[]) {
  try {
    await p.page.waitForURL((u) => u.pathname === path, { timeout: STEP_MS });
  } catch {
    expect.fail(`${what}: the page did not reach ${path}; ${await describePage(p, selectors)}`);
  }
}

/** Waits until the element's text matches (the page renders asynchronously). */
async function waitForText(p: BrowserPage, selector: string, pattern: RegExp, what: string, selectors?: string[]) {
  const loc = p.page.locator(selector).first();
  const deadline = Date.now() + STEP_MS;
  let last = '(absent)';
  while (Date.now() < deadline) {
    last = await loc.innerText({ timeout: 500 }).catch(() => '(absent)');
    if (pattern.test(last)) return last;
    await p.page.waitForTimeout(100);
  }
  return expect.fail(`${what}: ${selector} is ${JSON.stringify(last)}, expected ${pattern}; ${await describePage(p, selectors)}`);
}

async function passkeyIds(p: BrowserPage): Promise<string[]> {
  return p.page.locator('ul#passkeys > li.passkey').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.id ?? ''));
}

/** Waits until ul#passkeys lists `n` passkeys and returns their data-ids. */
async function waitForPasskeys(p: BrowserPage, n: number, what: string): Promise<string[]> {
  const deadline = Date.now() + STEP_MS;
  let ids: string[] = [];
  while (Date.now() < deadline) {
    ids = await passkeyIds(p);
    if (ids.length === n) return ids;
    await p.page.waitForTimeout(100);
  }
  return expect.fail(`${what}: ul#passkeys lists ${ids.length} passkeys (${JSON.stringify(ids)}), expected ${n}; ${await describePage(p)}`);
}

/** The frontend API calls of the page to `path` so far. */
async function calls(p: BrowserPage, path: string) {
  await p.flush();
  return p.exchanges.filter((e) => new URL(e.url).pathname === path);
}

/** Switches the authenticator's user presence off, so that conditional UI on the login page stays pending. */
async function holdConditionalUI(p: BrowserPage) {
  await p.setPresence(false);
}

/** Waits until the page's start-up calls are done, so its autofill request has been made (while presence is off). */
async function settleAutofill(p: BrowserPage) {
  await p.page.waitForLoadState('networkidle');
  await p.page.waitForTimeout(200);
}

/**
 * Autofill login: the page (with its unanswered autofill request) is loaded again with presence
 * on; Chromium hands the new request to the authenticator, which answers it. The user's focus on
 * the field is not needed for that, but is what a person does.
 */
async function autofillOnLoad(p: BrowserPage, field: string) {
  await settleAutofill(p);
  p.exchanges.length = 0;
  await p.setPresence(true);
  await p.page.reload();
  await p.page.locator(field).waitFor({ state: 'visible', timeout: STEP_MS });
  await p.page.focus(field);
}

async function backend(path: string, body: unknown) {
  const res = await fetch(`${stack.backendUrl}${path}`, { method: 'POST', headers: { authorization: basic(project), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${path} ${JSON.stringify(body)} → ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, any>;
}

/** Opens a fresh browser context (its own cookies, storage and empty virtual authenticator) on a demo page. */
async function openDemo(path: string, readySelector: string): Promise<BrowserPage> {
  return openPage(browser, `${demo.url}${path}`, {
    recordSignals: true,
    ready: (page, log) =>
      page.locator(readySelector).waitFor({ state: 'attached', timeout: 15_000 }).catch((err: Error) => {
        throw new Error(`the demo page ${path} did not show ${readySelector}: ${err.message}\n${log.join('\n')}`, { cause: err });
      }),
  });
}

describe.skipIf(skip)('demo app in Chromium', () => {
  beforeAll(async () => {
    for (const f of readdirSync(ARTIFACTS_DIR, { withFileTypes: true }).filter((e) => e.isFile() && e.name.startsWith('demo-'))) rmSync(join(ARTIFACTS_DIR, f.name));
    const { startDemo } = await import('@passkeyauth/demo');
    browser = await launchChromium();
    mail = await startMailCatcher();
    stack = await startStack({ smtpUrl: mail.smtpUrl, emailFrom: 'Passkey Demo <no-reply@localhost>' });
    const port = await freePort();
    const origin = `http://localhost:${port}`;
    project = await stack.createProject('demo-browser', [origin], ['--challenge-delivery', 'service', '--self-service', 'enabled']);
    connectProject = await stack.createProject('demo-browser-connect', [origin]);
    const demoProject = ({ projectID, apiSecret, frontendApiUrl, backendApiUrl }: ProjectJson) => ({ projectID, apiSecret, frontendApiUrl, backendApiUrl });
    demo = await startDemo({ port, project: demoProject(project), connectProject: demoProject(connectProject), mailInboxUrl: mail.webUrl });
    expect(demo.url, 'startDemo resolves with url http://localhost:<port>').toBe(origin);
    main = await openDemo('/', '#login-form');
    current = main;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.close();
    await stack?.stop();
    await mail?.stop();
  });

  afterEach(async (ctx) => {
    if (current && ctx.task.result?.state === 'fail') {
      const file = await failureScreenshot(current, 'demo', ctx.task.name);
      await current.flush().catch(() => undefined);
      console.error(
        `[test/browser] "${ctx.task.name}" failed; screenshot ${file}\n${await describePage(current).catch(() => '')}\n--- API exchanges ---\n${formatExchanges(current.exchanges, 600)}`,
      );
    }
    if (current) {
      current.log.length = 0;
      current.exchanges.length = 0;
    }
    current = main;
  });

  describe('sign-up, login and passkeys (one user, in order)', () => {
    it('1. signs up with a passkey and lands on /account with the user and one passkey', async () => {
      const { page } = main;
      expect(await page.locator('input#identifier').getAttribute('autocomplete'), 'input#identifier autocomplete').toBe('username webauthn');
      // Autofill started on load; Chromium refuses it at once here (no passkey for this site yet),
      // which the page must take quietly.
      await settleAutofill(main);
      expect((await calls(main, '/v2/auth/process/init')).length, 'autofill starts on page load (process/init)').toBeGreaterThan(0);
      expect((await page.locator('#error').innerText()).trim(), '#error on a fresh login page').toBe('');
      await shot(main, 'login-page');
      await page.fill('input#signup-email', ALICE.email);
      await page.fill('input#signup-name', ALICE.name);
      await shot(main, 'signup-filled');
      await page.click('button#signup-button');
      await waitForPath(main, '/account', 'sign-up');
      await waitForText(main, '#user-email', new RegExp(ALICE.email.replace('.', '\\.')), 'account after sign-up');
      expect(await page.locator('#user-name').innerText()).toContain(ALICE.name);
      const [id] = await waitForPasskeys(main, 1, 'account after sign-up');
      expect(id, 'li.passkey has a data-id').toBeTruthy();
      alice.firstPasskeyId = id;

      const li = page.locator(`li.passkey[data-id="${id}"]`);
      expect((await li.locator('.passkey-name').innerText()).trim(), '.passkey-name').not.toBe('');
      expect(await li.locator('.passkey-name img').count(), '.passkey-name has an img').toBeGreaterThan(0);
      expect((await li.locator('.passkey-created').innerText()).trim(), '.passkey-created').not.toBe('');
      expect(await li.locator('.passkey-last-used').count(), '.passkey-last-used').toBe(1);
      expect(await li.locator('.passkey-sync').count(), '.passkey-sync').toBe(1);
      expect(await li.locator('button.passkey-delete').count(), 'button.passkey-delete').toBe(1);
      await waitForText(main, '#server-check', /usr-[0-9]+/, 'the demo server checked the session (and shows its user ID)');

      const creds = await main.credentials();
      expect(creds, 'the virtual authenticator holds the new passkey').toHaveLength(1);
      expect(creds[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
      alice.firstCredential = creds[0];
      expect((await calls(main, '/v2/auth/passkey/append/finish')).map((e) => e.status)).toEqual([200]);
      await shot(main, 'account-after-signup');
    });

    it('2. verifies the email address with the code from the mail catcher (F11)', async () => {
      expect(alice.firstPasskeyId, 'needs the sign-up of 1').toBeDefined();
      const { page } = main;
      const li = page.locator('ul#identifiers > li.identifier').filter({ hasText: ALICE.email });
      expect(await li.count(), `ul#identifiers lists ${ALICE.email}; ${await describePage(main)}`).toBe(1);
      const status = (await li.locator('.identifier-status').innerText()).trim();
      expect(await li.locator('button.verify-identifier').count(), `a Verify button for ${ALICE.email} (status ${JSON.stringify(status)})`).toBe(1);
      expect(status, 'a passkey sign-up leaves the email address unverified').not.toMatch(/^verified$/i);
      await shot(main, 'identifier-unverified');
      const seen = await mail.seen();
      await li.locator('button.verify-identifier').click();
      await page.locator('form#verify-form').waitFor({ state: 'visible', timeout: STEP_MS });
      const code = await mail.codeFor(ALICE.email, seen);
      await page.fill('input#verify-code', code);
      await shot(main, 'verify-code-entered');
      await page.click('button#verify-submit');
      await waitForText(main, `li.identifier[data-id="${await li.getAttribute('data-id')}"] .identifier-status`, /^\s*verified\s*$/i, 'identifier after the code');
      expect(await li.locator('button.verify-identifier').count(), 'no verify button on a verified identifier').toBe(0);
      await shot(main, 'identifier-verified');
    });

    it('3. logs out back to the login page, and /account no longer shows the user', async () => {
      expect(alice.firstCredential, 'needs the sign-up of 1').toBeDefined();
      const token = await main.page.evaluate(() => sessionStorage.getItem('shortSession'));
      await holdConditionalUI(main);
      await main.page.click('button#logout');
      await waitForPath(main, '/', 'logout');
      await main.page.locator('form#login-form').waitFor({ state: 'visible', timeout: STEP_MS });
      await shot(main, 'logged-out');
      // The logout ended the session at the auth service too, not only in the page.
      expect(token, 'the page kept the session token in sessionStorage.shortSession').toBeTruthy();
      const me = await fetch(`${stack.frontendUrl}/v2/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(me.status, 'GET /v2/me with the session token of before the logout').toBe(401);
      await main.page.goto(`${demo.url}/account`);
      await main.page.waitForLoadState('networkidle');
      const shown = await main.page
        .locator('#user-email')
        .innerText({ timeout: 1000 })
        .catch(() => '');
      expect(shown, `/account after logout (${main.page.url()})`).not.toContain(ALICE.email);
      await main.page.goto(`${demo.url}/`);
      await main.page.locator('form#login-form').waitFor({ state: 'visible', timeout: STEP_MS });
      await settleAutofill(main);
    });

    it('4. logs in with the passkey: identifier typed, login button (conditional UI pending meanwhile)', async () => {
      expect(alice.firstCredential, 'needs the sign-up of 1').toBeDefined();
      // Presence is still off (3) and the page made its autofill request meanwhile: it stays
      // pending while the user types, as in a real browser. The click then makes the page abort
      // that request before its modal one, which the authenticator (present again) answers.
      expect(pathOf(main)).toBe('/');
      await main.page.fill('input#identifier', ALICE.email);
      await shot(main, 'login-identifier-typed');
      await main.setPresence(true);
      await main.page.click('button#login-button');
      await waitForPath(main, '/account', 'typed passkey login');
      await waitForText(main, '#user-email', /alice@example\.com/, 'account after login');
      expect((await calls(main, '/v2/auth/passkey/login/finish')).map((e) => e.status), 'the assertion went to passkey/login/finish').toEqual([200]);
      expect(await calls(main, '/v2/auth/passkey/mediation/finish'), 'no conditional-UI login here').toEqual([]);
      await waitForText(main, '#server-check', /usr-[0-9]+/, 'the demo server checked the session (and shows its user ID)');
      await shot(main, 'account-after-typed-login');
    });

    it('5. logs in through conditional UI (passkey autofill) on the login page', async () => {
      expect(alice.firstCredential, 'needs the sign-up of 1').toBeDefined();
      await holdConditionalUI(main);
      await main.page.click('button#logout');
      await waitForPath(main, '/', 'logout');
      await main.page.locator('form#login-form').waitFor({ state: 'visible', timeout: STEP_MS });
      await autofillOnLoad(main, 'input#identifier');
      await waitForPath(main, '/account', 'conditional-UI login');
      await waitForText(main, '#user-email', /alice@example\.com/, 'account after conditional UI');
      expect((await calls(main, '/v2/auth/passkey/mediation/finish')).map((e) => e.status), 'the assertion went to passkey/mediation/finish').toEqual([200]);
      expect(await calls(main, '/v2/auth/passkey/login/finish')).toEqual([]);
      await shot(main, 'account-after-conditional-ui');
    });

    it('6. adds a second passkey on a second device (its own browser profile)', async () => {
      expect(alice.firstCredential, 'needs the sign-up of 1').toBeDefined();
      // The service refuses a second passkey from the client environment (browser profile) that
      // created the first (docs/api/signup-login-and-sessions.md, F3: passkey_already_exists); check that the page says so.
      const before = await passkeyIds(main);
      expect(before).toEqual([alice.firstPasskeyId]);
      await main.page.click('button#add-passkey');
      const refusal = await waitForText(main, '#error', /\S/, 'a second passkey from the same browser profile');
      expect(refusal).toMatch(/already has a passkey|already_exists/i);
      expect(await passkeyIds(main)).toEqual([alice.firstPasskeyId]);
      await shot(main, 'second-passkey-refused-on-same-device');

      // Device 2 signs in with the synced copy of the first passkey (autofill), then, like a device
      // without it, creates its own: its authenticator drops the copy, so excludeCredentials
      // (which names the first passkey) does not stop the new one.
      device2 = await openDemo('/', '#login-form');
      current = device2;
      // A current copy: its signature counter must be ahead of what the server stored.
      const synced = (await main.credentials()).find((c) => c.credentialId === alice.firstCredential!.credentialId);
      expect(synced, 'device 1 still holds the first passkey').toBeDefined();
      await device2.addCredential(synced!);
      await device2.page.reload();
      await device2.page.focus('input#identifier');
      await waitForPath(device2, '/account', 'autofill login on device 2');
      await waitForPasskeys(device2, 1, 'account on device 2');
      await device2.removeCredential(alice.firstCredential!.credentialId);
      await device2.page.click('button#add-passkey');
      const ids = await waitForPasskeys(device2, 2, 'after adding a passkey on device 2');
      const added = ids.filter((i) => i !== alice.firstPasskeyId);
      expect(added, `a new data-id next to ${alice.firstPasskeyId}: ${JSON.stringify(ids)}`).toHaveLength(1);
      alice.secondPasskeyId = added[0];
      const creds = await device2.credentials();
      expect(creds).toHaveLength(1);
      expect(creds[0]!.credentialId).not.toBe(alice.firstCredential!.credentialId);
      expect(creds[0]!.userHandle, 'same WebAuthn user').toBe(alice.firstCredential!.userHandle);
      alice.secondCredential = creds[0];
      expect((await calls(device2, '/v2/me/passkeys/append/finish')).map((e) => e.status)).toEqual([200]);
      await shot(device2, 'two-passkeys-on-device-2');
    });

    it('7. deletes a passkey: one remains listed', async () => {
      expect(alice.secondPasskeyId, 'needs the second passkey of 6').toBeDefined();
      current = device2;
      const dialogs: string[] = [];
      const onDialog = (d: import('playwright-core').Dialog) => {
        dialogs.push(`${d.type()}: ${d.message()}`);
        void d.accept();
      };
      device2.page.on('dialog', onDialog);
      try {
        // Device 2 removes its own passkey (the one its authenticator holds).
        await device2.page.click(`li.passkey[data-id="${alice.secondPasskeyId}"] button.passkey-delete`);
        const ids = await waitForPasskeys(device2, 1, 'after deleting a passkey');
        expect(ids).toEqual([alice.firstPasskeyId]);
      } finally {
        device2.page.off('dialog', onDialog);
      }
      alice.deletedPasskeyId = alice.secondPasskeyId;
      if (dialogs.length > 0) console.info(`[test/browser] the delete asked: ${dialogs.join(' | ')}`);
      await device2.page.reload();
      expect(await waitForPasskeys(device2, 1, 'after a reload')).toEqual([alice.firstPasskeyId]);
      await shot(device2, 'one-passkey-after-delete');
    });

    it('8. conditional UI with the deleted passkey ends on the login page with a clear message', async () => {
      expect(alice.deletedPasskeyId, 'needs the deletion of 7').toBeDefined();
      current = device2;
      const deleted = alice.secondCredential!;
      const signalsAtDelete = device2.signals.slice();
      // Had the page told the authenticator about the deletion already (signalAllAcceptedCredentials),
      // the device would keep no stale passkey; put it back to test the login page anyway.
      const held = (await device2.credentials()).map((c) => c.credentialId);
      const forgotten = !held.includes(deleted.credentialId);
      if (forgotten) await device2.addCredential(deleted);
      expect((await device2.credentials()).map((c) => c.credentialId)).toEqual([deleted.credentialId]);

      await holdConditionalUI(device2);
      await device2.page.click('button#logout');
      await waitForPath(device2, '/', 'logout');
      await device2.page.locator('form#login-form').waitFor({ state: 'visible', timeout: STEP_MS });
      await settleAutofill(device2);
      device2.authenticatorEvents.length = 0;
      device2.signals.length = 0;
      await autofillOnLoad(device2, 'input#identifier');
      const message = await waitForText(device2, '#error', /\S/, 'conditional UI with a deleted passkey');
      expect(message, '#error says why the passkey did not work').toMatch(/delet|no longer|removed|not (found|recogni[sz]ed|registered)|unknown/i);
      const finishes = await calls(device2, '/v2/auth/passkey/mediation/finish');
      expect(finishes.length, 'the assertion went to passkey/mediation/finish').toBeGreaterThan(0);
      expect(finishes[0]!.responseBody).toContain('credential_deleted');
      // No loop: the page does not keep retrying with the same passkey.
      await device2.page.waitForTimeout(1500);
      expect((await calls(device2, '/v2/auth/passkey/mediation/finish')).length, 'mediation/finish calls (a retry loop?)').toBe(1);
      expect(pathOf(device2)).toBe('/');
      expect(device2.log.filter((l) => l.startsWith('pageerror')), 'no uncaught errors').toEqual([]);
      expect(await device2.page.locator('input#identifier').isEditable(), 'the login form still works').toBe(true);
      await shot(device2, 'deleted-passkey-message');

      const unknown = device2.signals.filter((x) => x.name === 'signalUnknownCredential');
      // Where the browser has the Signal API, the page must use it to drop the stale passkey.
      const signalSupported = await device2.page.evaluate(() => typeof (PublicKeyCredential as unknown as Record<string, unknown>).signalUnknownCredential === 'function');
      if (signalSupported) expect(unknown, 'the page called PublicKeyCredential.signalUnknownCredential once').toHaveLength(1);
      console.info(
        `[test/browser] deleted passkey: signals up to the deletion ${JSON.stringify(signalsAtDelete.map((x) => x.name))} (the authenticator ${forgotten ? 'had forgotten' : 'still held'} it); ` +
          `on the login page ${JSON.stringify(unknown)}; authenticator events ${JSON.stringify(device2.authenticatorEvents)}`,
      );
      if (unknown.length > 0) {
        expect(unknown[0]!.args).toMatchObject({ rpId: 'localhost', credentialId: deleted.credentialIdBase64url });
        // Chromium removes the credential from the (virtual) authenticator.
        await device2.page.waitForTimeout(200);
        expect((await device2.credentials()).map((c) => c.credentialId), 'signalUnknownCredential removed the credential from the authenticator').not.toContain(deleted.credentialId);
        expect(device2.authenticatorEvents).toContainEqual(expect.objectContaining({ type: 'deleted', credentialId: deleted.credentialIdBase64url }));
      }
    });
  });

  describe('email OTP', () => {
    it('9. a user without passkeys logs in with the emailed code and skips the passkey', async () => {
      const created = await backend('/v2/users', { fullName: BOB.name, status: 'active' });
      await backend(`/v2/users/${created.userID}/identifiers`, { identifierType: 'email', identifierValue: BOB.email, status: 'verified' });
      const p = await openDemo('/', '#login-form');
      current = p;
      await p.page.fill('input#identifier', BOB.email);
      const seen = await mail.seen();
      await p.page.click('button#login-button');
      await p.page.locator('form#otp-form').waitFor({ state: 'visible', timeout: STEP_MS }).catch(async () => expect.fail(`no form#otp-form after a login without passkey; ${await describePage(p)}`));
      const banner = p.page.locator('#mail-banner');
      expect(await banner.isVisible(), '#mail-banner is shown with the code form').toBe(true);
      const links = await banner.locator('a[href]').evaluateAll((els) => els.map((e) => (e as HTMLAnchorElement).href.replace(/\/$/, '')));
      expect(links, '#mail-banner links to the mail inbox').toContain(mail.webUrl);
      await shot(p, 'otp-form');
      const code = await mail.codeFor(BOB.email, seen);
      await p.page.fill('input#otp-code', code);
      await p.page.click('button#otp-submit');
      // A user without passkeys is offered one after the code; skipping completes the login.
      await p.page.locator('button#skip-passkey').waitFor({ state: 'visible', timeout: STEP_MS }).catch(async () => expect.fail(`no button#skip-passkey after the code; ${await describePage(p)}`));
      await shot(p, 'passkey-offer-after-otp');
      const status = (await p.page.locator('#status').innerText()).trim();
      expect.soft(status, '#status while the page waits for the user to create or skip the passkey (a stale progress message?)').not.toMatch(/…|\.\.\.$/);
      await p.page.click('button#skip-passkey');
      await waitForPath(p, '/account', 'OTP login');
      await waitForText(p, '#user-email', /bob@example\.com/, 'account after OTP login');
      expect(await p.page.locator('#user-name').innerText()).toContain(BOB.name);
      expect(await passkeyIds(p)).toEqual([]);
      expect(await p.credentials(), 'no passkey was created').toEqual([]);
      await waitForText(p, '#server-check', /usr-[0-9]+/, 'the demo server checked the session (and shows its user ID)');
      expect((await calls(p, '/v2/auth/identifier/verify/finish')).map((e) => e.status)).toContain(200);
      await shot(p, 'account-after-otp-login');
    });
    it('9b. signs up with the emailed code instead of a passkey, then skips the passkey', async () => {
      const DAVE = { email: 'dave@example.com', name: 'Dave Devices' };
      const p = await openDemo('/', '#signup-form');
      current = p;
      // The browser's passkey prompt stays open (presence off) until the user picks the code instead.
      await settleAutofill(p);
      await holdConditionalUI(p);
      await p.page.fill('input#signup-email', DAVE.email);
      await p.page.fill('input#signup-name', DAVE.name);
      await p.page.click('button#signup-button');
      await p.page.locator('button#use-code').waitFor({ state: 'visible', timeout: STEP_MS });
      await shot(p, 'signup-passkey-prompt-with-code-alternative');
      const seen = await mail.seen();
      await p.page.click('button#use-code');
      await p.page.locator('form#otp-form').waitFor({ state: 'visible', timeout: STEP_MS });
      await p.page.waitForTimeout(300);
      const stale = (await p.page.locator('#error').innerText()).trim();
      expect.soft(stale, '#error on the code step after choosing the code (the aborted passkey prompt is no error)').toBe('');
      await shot(p, 'signup-code-step');
      await p.page.fill('input#otp-code', await mail.codeFor(DAVE.email, seen));
      await p.setPresence(true);
      await p.page.click('button#otp-submit');
      await p.page.locator('button#skip-passkey').waitFor({ state: 'visible', timeout: STEP_MS }).catch(async () => expect.fail(`no button#skip-passkey after the sign-up code; ${await describePage(p)}`));
      await p.page.click('button#skip-passkey');
      await waitForPath(p, '/account', 'sign-up with a code');
      await waitForText(p, '#user-email', /dave@example\.com/, 'account after the code sign-up');
      expect(await passkeyIds(p)).toEqual([]);
      expect(await p.credentials(), 'no passkey was created').toEqual([]);
      const status = await p.page.locator('ul#identifiers > li.identifier').filter({ hasText: DAVE.email }).locator('.identifier-status').innerText();
      expect(status.trim(), 'the code verified the email address').toMatch(/^verified$/i);
      await shot(p, 'account-after-code-signup');
    });
  });

  describe('connect flows page', () => {
    const sel = ['#connect-status', '#connect-error', '#connect-result'];
    let connect: BrowserPage;

    const connectPasskeyIds = () => connect.page.locator('ul#connect-passkeys > li.connect-passkey').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.id ?? ''));
    async function waitForConnectPasskeys(n: number, what: string) {
      const deadline = Date.now() + STEP_MS;
      let ids: string[] = [];
      while (Date.now() < deadline) {
        ids = await connectPasskeyIds();
        if (ids.length === n) return ids;
        await connect.page.waitForTimeout(100);
      }
      return expect.fail(`${what}: ul#connect-passkeys lists ${ids.length} passkeys, expected ${n}; ${await describePage(connect, sel)}`);
    }
    const connectError = async () => (await connect.page.locator('#connect-error').innerText().catch(() => '')).trim();

    afterAll(async () => connect?.close());

    it('10. password account → connect append → list → logout → typed connect passkey login (server-verified)', async () => {
      connect = await openDemo('/connect', '#pw-email');
      current = connect;
      const { page } = connect;
      await shot(connect, 'connect-page');
      await page.fill('input#pw-email', CAROL.email);
      await page.fill('input#pw-password', CAROL.password);
      await page.click('button#pw-register');
      await waitForText(connect, '#connect-status', /carol@example\.com|signed in|logged in|registered/i, 'password registration', sel);
      expect(await connectError(), '#connect-error after registration').toBe('');
      await shot(connect, 'connect-password-registered');

      await page.click('button#connect-append');
      const [id] = await waitForConnectPasskeys(1, 'after the append');
      expect(id).toBeTruthy();
      expect(await page.locator('li.connect-passkey button.connect-delete').count()).toBe(1);
      expect((await calls(connect, '/v2/connect/append/finish')).map((e) => e.status)).toEqual([200]);
      expect(await calls(connect, '/v2/connect/manage/list'), 'the list came through manage/list').not.toEqual([]);
      expect(await connect.credentials()).toHaveLength(1);
      await shot(connect, 'connect-passkey-appended');

      // Log out of the application (its own session).
      await holdConditionalUI(connect);
      await page.click('button#pw-logout');
      await page.locator('input#pw-email').waitFor({ state: 'visible', timeout: STEP_MS });
      await page.reload();
      await page.locator('input#connect-identifier').waitFor({ state: 'visible', timeout: STEP_MS });
      expect(await connectPasskeyIds(), 'no passkey list while signed out').toEqual([]);
      await shot(connect, 'connect-logged-out');
      await settleAutofill(connect);
      connect.exchanges.length = 0;
      // Typed: the autofill request stays pending while the user types (presence off), see 4.
      await page.fill('input#connect-identifier', CAROL.email);
      await connect.setPresence(true);
      await page.click('button#connect-login');
      const result = await waitForText(connect, '#connect-result', /carol@example\.com/, 'connect passkey login', sel);
      expect(result).toMatch(/usr-/);
      expect((await calls(connect, '/v2/connect/login/start')).map((e) => e.status), 'typed login: login/start').toEqual([200]);
      expect((await calls(connect, '/v2/connect/login/finish')).map((e) => e.status)).toEqual([200]);
      expect(await connectError(), '#connect-error after the login').toBe('');
      await expect.poll(() => page.locator('button#connect-login').isEnabled(), { timeout: 2000 }).toBe(true);
      await shot(connect, 'connect-login-result');
    });

    it('11. connect: passkey autofill login, then the passkey is deleted', async () => {
      expect(connect, 'needs 10').toBeDefined();
      current = connect;
      const { page } = connect;
      await holdConditionalUI(connect);
      await page.click('button#pw-logout');
      await page.reload();
      await page.locator('input#connect-identifier').waitFor({ state: 'visible', timeout: STEP_MS });
      await autofillOnLoad(connect, 'input#connect-identifier');
      await waitForText(connect, '#connect-result', /carol@example\.com/, 'connect autofill login', sel);
      expect(await calls(connect, '/v2/connect/login/start'), 'autofill: no login/start').toEqual([]);
      expect((await calls(connect, '/v2/connect/login/finish')).map((e) => e.status)).toEqual([200]);
      await shot(connect, 'connect-autofill-result');

      // Signed in again (the server verified signedPasskeyData): the list comes back; delete the passkey.
      const [id] = await waitForConnectPasskeys(1, 'after the passkey login');
      connect.page.once('dialog', (d) => void d.accept());
      await page.click(`li.connect-passkey[data-id="${id}"] button.connect-delete`);
      await waitForConnectPasskeys(0, 'after the delete');
      expect((await calls(connect, '/v2/connect/manage/delete')).map((e) => e.status)).toEqual([200]);
      expect(await connectError()).toBe('');
      await shot(connect, 'connect-passkey-deleted');
    });
  });

  describe('backend API page', () => {
    it('12. the demo server runs B2–B7: a user with a passkey, its login, and a login that names no user', async () => {
      const p = await openDemo('/backend', '#b-append');
      current = p;
      const sel = ['#b-status', '#b-error', '#b-result'];
      await p.page.click('button#b-append');
      const created = await waitForText(p, '#b-result', /Passkey created for demo-[0-9a-f]{6} \(usr-[0-9]+\)/, 'B2/B3 through the demo server', sel);
      const [, username, userID] = /for (demo-[0-9a-f]{6}) \((usr-[0-9]+)\)/.exec(created)!;
      expect(await p.credentials(), 'the authenticator holds the new passkey').toHaveLength(1);
      await shot(p, 'backend-passkey-created');

      await p.page.click('button#b-login');
      const loggedIn = await waitForText(p, '#b-result', /^Logged in as usr-/, 'B4/B5 through the demo server', sel);
      expect(loggedIn).toContain(`Logged in as ${userID}`);
      // The demo server verified signedPasskeyData against the JWKS and shows whom it names.
      expect(loggedIn).toContain('"signedPasskeyDataVerified"');
      expect(loggedIn).toContain(`"username": "${username}"`);

      await p.page.click('button#b-conditional');
      const picked = await waitForText(p, '#b-result', new RegExp(`^Logged in as ${username}\\.`), 'B6/B7 through the demo server', sel);
      expect(picked).toContain(`"userID": "${userID}"`);
      expect((await p.page.locator('#b-error').innerText()).trim()).toBe('');
      await shot(p, 'backend-login-without-user');
    });
  });
});
