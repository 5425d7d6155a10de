/**
 * The demo app's web-js page (examples/demo, /web-js) in a real browser, reached the way
 * `npm start` serves it: the published @corbado/web-js bundled by the demo server, the TLS front of
 * deploy/local/tls (startTlsFront.ts: a local CA made in a temporary directory, certificates per
 * `*.localhost` name, bytes relayed to the gateway), and Chromium trusting that CA through its NSS database as
 * docs/web-sdks.md tells developers to (no --ignore-certificate-errors). A user signs up with a
 * passkey in the auth UI, sees the passkey list and the demo server's check of the SDK's session
 * token, logs out, and logs in again with the passkey.
 *
 * Needs Chromium (skipped without it unless CI or PASSKEYAUTH_REQUIRE_CHROMIUM=1) and certutil.
 */
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';
import { chromiumMissing, chromiumRequired, failureScreenshot, formatExchanges, launchChromium, openPage, type BrowserPage } from './chromium.js';
import { startMailCatcher, type MailCatcher } from './mailCatcher.js';
import { startTlsFront, type TlsFront } from './startTlsFront.js';

const missing = chromiumMissing();
const skip = missing !== null && !chromiumRequired();
if (skip) console.warn(`[test/browser] SKIPPED: ${missing}. Set CI=1 or PASSKEYAUTH_REQUIRE_CHROMIUM=1 to make this a failure.`);

const HEDY = 'hedy@example.com';
const STEP_MS = 15_000;

let stack: Stack;
let mail: MailCatcher;
let project: ProjectJson;
let front: TlsFront;
let demo: { url: string; close(): Promise<void> };
let browser: Browser;
let tab: BrowserPage;

describe.skipIf(skip)("the demo's web-js page (published @corbado/web-js through the TLS front of npm start)", () => {
  beforeAll(async () => {
    mail = await startMailCatcher();
    stack = await startStack({ smtpUrl: mail.smtpUrl, emailFrom: 'Passkey Demo <no-reply@localhost>' });
    front = await startTlsFront(stack.frontendUrl);
    const port = await freePort();
    project = await stack.createProject('demo-web-js', [`http://localhost:${port}`], ['--self-service', 'enabled']);
    // The connect and backend pages' project (self-service off), which this test does not open.
    const connectProject = await stack.createProject('demo-web-js-connect', [`http://localhost:${port}`]);
    const { startDemo } = await import('@passkeyauth/demo');
    const demoProject = ({ projectID, apiSecret, frontendApiUrl, backendApiUrl }: ProjectJson) => ({ projectID, apiSecret, frontendApiUrl, backendApiUrl });
    demo = await startDemo({ port, project: demoProject(project), connectProject: demoProject(connectProject), mailInboxUrl: mail.webUrl, webSdkUrlSuffix: `localhost:${front.port}` });
    browser = await launchChromium({ trustedCaPem: front.caPem });
    tab = await openPage(browser, `${demo.url}/web-js`, {
      ready: (page, log) =>
        page.getByText('No account?').waitFor({ timeout: STEP_MS }).catch((err: Error) => {
          throw new Error(`the web-js page showed no auth UI: ${err.message}\n${log.join('\n')}`, { cause: err });
        }),
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.close();
    await front?.close();
    await stack?.stop();
    await mail?.stop();
  });

  afterEach(async (ctx) => {
    if (!tab) return;
    await tab.flush();
    if (ctx.task.result?.state === 'fail') {
      console.error(`[test/browser] "${ctx.task.name}" failed; screenshot ${await failureScreenshot(tab, 'demo-web-js', ctx.task.name)}\n${tab.log.join('\n')}\n${formatExchanges(tab.exchanges)}`);
    }
    tab.log.length = 0;
    tab.exchanges.length = 0;
  });

  it('signs up with a passkey in the auth UI; the page shows the user, the passkey list and a session the demo server verified', async () => {
    const { page } = tab;
    const auth = page.locator('#corbado-auth');
    await auth.getByText('Sign up', { exact: true }).click();
    await auth.getByText('Create your account').waitFor({ timeout: STEP_MS });
    await auth.locator('input#email').fill(HEDY);
    await auth.getByRole('button', { name: 'Continue' }).click();
    await auth.getByRole('button', { name: 'Create account' }).click();
    await auth.getByText('Success!').waitFor({ timeout: STEP_MS });
    await auth.getByRole('button', { name: 'Continue' }).click();

    await page.locator('#signed-in').waitFor({ state: 'visible', timeout: STEP_MS });
    // A passkey proves no email address: the session token states none, and the page says so.
    expect(await page.locator('#user-email').innerText()).toBe('not verified yet');
    await page.locator('#server-check').getByText(/^valid session of usr-/).waitFor({ timeout: STEP_MS });
    await page.locator('#corbado-passkeys .cb-passkey-list-card').first().waitFor({ timeout: STEP_MS });
    expect(await page.locator('#corbado-passkeys .cb-passkey-list-card').count()).toBe(1);
    expect((await tab.credentials()).length, 'passkeys on the virtual authenticator').toBe(1);
    // Everything went through the front or the frontend API URL it named; the first call was to
    // https://{projectID}.localhost:<port>, over TLS the browser verified against the local CA.
    await tab.flush();
    const hosts = new Set(tab.exchanges.map((e) => new URL(e.url).host));
    expect([...hosts].sort()).toEqual([`${project.projectID}.localhost:${front.port}`, new URL(project.frontendApiUrl).host].sort());
    expect(tab.exchanges.filter((e) => e.status >= 400).map((e) => `${e.method} ${e.url} ${e.status}`)).toEqual([]);
  });

  it('logs out, and logs in again with the passkey', async () => {
    const { page } = tab;
    const [before] = await tab.credentials();
    await page.locator('#logout').click();
    await page.locator('#signed-out').waitFor({ state: 'visible', timeout: STEP_MS });
    // The login screen comes up with its identifier field focused, so the browser's passkey
    // autofill is open and the virtual authenticator answers it at once. The page can pass through
    // the login screen faster than a locator polls (a CI run missed its "Login with Passkey"
    // text), so the screen is checked in the exchanges below, not on the page.
    await page.locator('#signed-in').waitFor({ state: 'visible', timeout: STEP_MS });
    expect(await page.locator('#user-email').innerText()).toBe('not verified yet');
    await page.locator('#server-check').getByText(/^valid session of usr-/).waitFor({ timeout: STEP_MS });
    await page.locator('#corbado-passkeys .cb-passkey-list-card').first().waitFor({ timeout: STEP_MS });
    expect(await page.locator('#corbado-passkeys .cb-passkey-list-card').count()).toBe(1);
    // The authenticator signed: a passkey login, not a session left over from the sign-up.
    expect((await tab.credentials())[0]!.signCount).toBeGreaterThan(before!.signCount);
    await tab.flush();
    expect(tab.exchanges.map((e) => `${e.method} ${new URL(e.url).pathname} ${e.status}`)).toEqual(expect.arrayContaining(['POST /v2/me/logout 204', 'POST /v2/auth/passkey/mediation/finish 200']));
    // After the logout the process started at the login screen, with the autofill's challenge.
    const logout = tab.exchanges.findIndex((e) => new URL(e.url).pathname === '/v2/me/logout');
    const init = tab.exchanges.slice(logout).find((e) => e.method === 'POST' && new URL(e.url).pathname === '/v2/auth/process/init');
    expect(JSON.parse(init!.responseBody).processResponse.blockBody).toMatchObject({ block: 'login-init', data: { conditionalUIChallenge: expect.stringContaining('"challenge"') } });
  });
});
