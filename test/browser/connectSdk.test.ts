/**
 * Drop-in test in a real browser: the published web SDK (@corbado/web-core's ConnectService),
 * unchanged, in headless Chromium with a virtual platform authenticator, runs the connect flows
 * (append, login, fallback, conditional UI, passkey management) against our gateway. The test plays
 * the application's server: it creates connect tokens with the backend API and hands their secrets
 * to the page. The page is http://localhost:<port>/ (RP ID `localhost`); the project allows exactly
 * that origin.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH). Without it the suite is skipped with a
 * message, except in CI (CI or PASSKEYAUTH_REQUIRE_CHROMIUM=1), where it fails.
 */
import { Config, SDK } from '@corbado/node-sdk';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';
import { chromiumMissing, chromiumRequired, failureScreenshot, formatExchanges, launchChromium, openSdkPage, pageLog, type Exchange, type SdkPage } from './chromium.js';
import type { PageResult } from './page/connectPage.js';
import { startSdkPage, type SdkPageServer } from './sdkPage.js';
import { checkShape, CONNECT_RESPONSE_TYPES, loadSdkTypes } from './sdkTypes.js';

const missing = chromiumMissing();
const skip = missing !== null && !chromiumRequired();
if (skip) console.warn(`[test/browser] SKIPPED: ${missing}. Set CI=1 or PASSKEYAUTH_REQUIRE_CHROMIUM=1 to make this a failure.`);

const run = promisify(execFile);
const ALICE = 'alice@example.com';
/** Headers the SDK sends on its frontend API calls (axios, withCredentials). */
const SDK_HEADERS = ['content-type', 'x-corbado-projectid', 'x-corbado-sdk', 'x-corbado-client-timezone', 'x-corbado-process-id'];

let pageServer: SdkPageServer;
let stack: Stack;
let project: ProjectJson;
let browser: Browser;
let sdk: SdkPage;
let current: SdkPage | undefined;
/** Every API exchange of the run (BROWSER_TEST_DUMP=file.json writes them out). */
const traffic: (Exchange & { test: string })[] = [];

interface ConnectToken {
  id: string;
  tokenType: string;
  data: { identifier: string; displayName?: string };
  connectTokenStatus: string;
  secret: string;
  expires: number;
}

/** The application's server: POST /v2/connectTokens with HTTP Basic. */
async function connectToken(type: 'passkey-append' | 'passkey-list' | 'passkey-delete', identifier: string, displayName?: string): Promise<ConnectToken> {
  const body = { type, data: displayName === undefined ? { identifier } : { identifier, displayName } };
  const res = await fetch(`${stack.backendUrl}/v2/connectTokens`, {
    method: 'POST',
    headers: { authorization: basic(project), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST /v2/connectTokens ${JSON.stringify(body)} → ${res.status} ${text}`);
  const token = JSON.parse(text) as ConnectToken;
  expect(token, text).toMatchObject({ id: expect.stringMatching(/^ctk-/), tokenType: type, connectTokenStatus: 'initial', secret: expect.any(String), expires: expect.any(Number) });
  return token;
}

/** Runs the project CLI against the stack's store and returns its JSON output. */
async function projectCli(args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'services/connect/src/cli/project.ts', ...args], { env: { ...process.env, ...stack.env } });
  return JSON.parse(stdout);
}

/** Unwraps an ok result, or fails with the SDK's error and what the page logged. */
function ok<T>(res: PageResult<T>, what: string, page: SdkPage | undefined = sdk): T {
  if (!res.ok) expect.fail(`${what}: SDK returned ${res.err.type}: ${res.err.message}${pageLog(page)}`);
  return res.val;
}

async function jwks() {
  const res = await fetch(`${project.frontendApiUrl}/.well-known/jwks`, { headers: { 'X-Corbado-ProjectID': project.projectID } });
  expect(res.status).toBe(200);
  return createLocalJWKSet((await res.json()) as JSONWebKeySet);
}

async function userIdOf(email: string): Promise<string> {
  const node = new SDK(new Config(project.projectID, project.apiSecret, project.frontendApiUrl, project.backendApiUrl));
  const { identifiers } = await node.identifiers().listByValueAndType(email, 'email');
  expect(identifiers, `identifiers for ${email}`).toHaveLength(1);
  return identifiers[0]!.userID;
}

/** Verifies a login's session and signedPasskeyData against the project's JWKS. */
async function expectLoginTokens(finish: { session: string; signedPasskeyData: string }, userID: string) {
  expect(finish.session.split('.')).toHaveLength(3);
  expect(finish.signedPasskeyData.split('.')).toHaveLength(3);
  const keys = await jwks();
  const session = await jwtVerify(finish.session, keys, { issuer: project.frontendApiUrl, algorithms: ['ES256'] }).catch((err: Error) => {
    throw new Error(`session does not verify (${err.message}); claims ${JSON.stringify(decodeJwt(finish.session))}`, { cause: err });
  });
  expect(session.payload.sub).toBe(userID);
  expect(session.payload.iss).toBe(project.frontendApiUrl);
  const signed = await jwtVerify(finish.signedPasskeyData, keys, { issuer: project.frontendApiUrl, algorithms: ['ES256'] }).catch((err: Error) => {
    throw new Error(`signedPasskeyData does not verify (${err.message}); claims ${JSON.stringify(decodeJwt(finish.signedPasskeyData))}`, { cause: err });
  });
  expect(signed.payload.sub).toBe(userID);
}

function expectExpiresAtInSeconds(expiresAt: unknown) {
  const now = Date.now() / 1000;
  expect(expiresAt, 'expiresAt (seconds since the epoch, in the future)').toEqual(expect.any(Number));
  expect(expiresAt as number).toBeGreaterThan(now);
  expect(expiresAt as number).toBeLessThan(now + 7 * 86400);
}

describe.skipIf(skip)('@corbado/web-core ConnectService in Chromium against the gateway', () => {
  beforeAll(async () => {
    browser = await launchChromium();
    pageServer = await startSdkPage();
    stack = await startStack();
    project = await stack.createProject('web-core-browser', [pageServer.origin]);
    expect(project.rpID).toBe('localhost');
    sdk = await openSdkPage(browser, pageServer.url(project.projectID, project.frontendApiUrl));
    current = sdk;
  }, 120_000);

  afterAll(async () => {
    if (process.env.BROWSER_TEST_DUMP) writeFileSync(process.env.BROWSER_TEST_DUMP, JSON.stringify(traffic, null, 2));
    await browser?.close();
    await stack?.stop();
    await pageServer?.close();
  });

  afterEach(async (ctx) => {
    await current?.flush();
    if (ctx.task.result?.state === 'fail' && current) {
      console.error(`[test/browser] "${ctx.task.name}" failed; screenshot ${await failureScreenshot(current, 'connect-sdk', ctx.task.name)}`);
      if (current.log.length > 0) console.error(`[test/browser] page log for "${ctx.task.name}":\n${current.log.join('\n')}`);
      if (current.exchanges.length > 0 && process.env.BROWSER_TEST_TRAFFIC !== '0') {
        console.error(`[test/browser] API exchanges of "${ctx.task.name}":\n${formatExchanges(current.exchanges)}`);
      }
    }
    if (current) {
      traffic.push(...current.exchanges.map((e) => ({ test: ctx.task.name, ...e })));
      current.log.length = 0;
      current.exchanges.length = 0;
    }
    current = sdk;
  });

  describe('harness', () => {
    it('serves the page on localhost as a secure context with a user-verifying platform authenticator', async () => {
      const env = await sdk.environment();
      expect(env).toMatchObject({ isSecureContext: true, origin: pageServer.origin, uvpa: true, conditionalMediation: true, projectId: project.projectID });
      expect(await sdk.credentials()).toEqual([]);
    });

    it('answers the SDK’s CORS preflight for the page origin', async () => {
      for (const path of ['/v2/connect/login/init', '/v2/connect/login/start', '/v2/connect/append/start', '/v2/connect/manage/list']) {
        const res = await fetch(`${project.frontendApiUrl}${path}`, {
          method: 'OPTIONS',
          headers: { origin: pageServer.origin, 'access-control-request-method': 'POST', 'access-control-request-headers': SDK_HEADERS.join(',') },
        });
        expect(res.status, path).toBeLessThan(300);
        expect(res.headers.get('access-control-allow-origin'), path).toBe(pageServer.origin);
        expect(res.headers.get('access-control-allow-credentials'), path).toBe('true');
        const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
        for (const h of SDK_HEADERS) expect(allowed, `${path} allows ${h}`).toContain(h);
        expect(res.headers.get('access-control-allow-methods') ?? '', path).toContain('POST');
      }
    });

    it('loginInit reaches the gateway and gets an HTTP answer (not a network or CORS failure)', async () => {
      const res = await sdk.call('loginInit');
      if (!res.ok) expect(res.err.type, `${res.err.message}${pageLog(sdk)}`).not.toBe('RequestTimeout');
      await sdk.call('clearLocalState');
    });
  });

  describe('flows', () => {
    let appendToken: ConnectToken;
    let credentialIdBase64url: string;
    let aliceId: string;

    it('a. appends a passkey with a passkey-append connect token', async () => {
      const init = ok(await sdk.call('appendInit'), 'appendInit');
      expect(init).toMatchObject({ appendAllowed: true, flags: expect.any(Object) });
      expectExpiresAtInSeconds(init.expiresAt);

      appendToken = await connectToken('passkey-append', ALICE, 'Alice Example');
      const start = ok(await sdk.call('startAppend', appendToken.secret, 1200, false), 'startAppend');
      expect(start.attestationOptions).toEqual(expect.any(String));
      expect(start.attestationOptions.length).toBeGreaterThan(0);
      const options = JSON.parse(start.attestationOptions);
      expect(options.publicKey).toMatchObject({ rp: { id: 'localhost' }, challenge: expect.any(String), user: { id: expect.any(String) } });

      const finish = ok(await sdk.call('completeAppend', start.attestationOptions, 'manual'), 'completeAppend');
      expect(finish.passkeyOperation).toMatchObject({ operationType: 'append', identifierValue: ALICE, identifierType: 'email', ceremonyType: 'local' });

      const creds = await sdk.credentials();
      expect(creds).toHaveLength(1);
      expect(creds[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
      credentialIdBase64url = creds[0]!.credentialIdBase64url;
      aliceId = await userIdOf(ALICE);
      expect(aliceId).toMatch(/^usr-[0-9]+$/);
    });

    it('a. refuses a consumed passkey-append token', async () => {
      expect(appendToken, 'needs the append of scenario a').toBeDefined();
      const again = await sdk.call('startAppend', appendToken.secret, 1200, false);
      expect(again.ok, `startAppend with a consumed token answered ${JSON.stringify(again)}`).toBe(false);
      expect(await sdk.credentials()).toHaveLength(1);
    });

    it('a. a second append from the same authenticator is stopped by excludeCredentials', async () => {
      expect(credentialIdBase64url, 'needs the passkey of scenario a').toBeDefined();
      const token = await connectToken('passkey-append', ALICE, 'Alice Example');
      const start = ok(await sdk.call('startAppend', token.secret, 1200, true), 'startAppend (second)');
      const excluded = (JSON.parse(start.attestationOptions).publicKey.excludeCredentials ?? []).map((c: { id: string }) => c.id);
      expect(excluded).toContain(credentialIdBase64url);
      const finish = await sdk.call('completeAppend', start.attestationOptions, 'manual');
      expect(finish.ok).toBe(false);
      if (!finish.ok) expect(finish.err.type).toBe('ExcludeCredentialsMatch');
      expect(await sdk.credentials()).toHaveLength(1);
    });

    it('b. logs in with the passkey (identifier typed) and returns a verifiable session', async () => {
      expect(aliceId, 'needs the passkey of scenario a').toBeDefined();
      const init = ok(await sdk.call('loginInit'), 'loginInit');
      expect(init).toMatchObject({ loginAllowed: true });
      expectExpiresAtInSeconds(init.expiresAt);

      const start = ok(await sdk.call('loginStart', ALICE, 'text-field', 100), 'loginStart');
      expect(start.assertionOptions).toEqual(expect.any(String));
      expect(start.assertionOptions.length).toBeGreaterThan(0);
      expect(start.fallbackOperationError?.initFallback ?? false).toBe(false);
      const options = JSON.parse(start.assertionOptions);
      expect(options.publicKey).toMatchObject({ rpId: 'localhost', challenge: expect.any(String) });

      const finish = ok(await sdk.call('loginContinue', start), 'loginContinue');
      expect(finish.passkeyOperation).toMatchObject({ operationType: 'verify', identifierValue: ALICE, identifierType: 'email' });
      await expectLoginTokens(finish, aliceId);
      const creds = await sdk.credentials();
      expect(creds[0]!.signCount).toBeGreaterThan(0);
    });

    it('b. conditional UI on the same stored process after a typed login (a returning visitor)', async () => {
      expect(aliceId, 'needs the passkey of scenario a').toBeDefined();
      // The SDK keeps the process and its loginData (with the conditionalUIChallenge of the first
      // loginInit) in localStorage until expiresAt, so a visitor coming back to the login page runs
      // conditional UI with that stored challenge, without a new loginInit.
      await sdk.page.focus('#username');
      const finish = ok(await sdk.call('conditionalUILogin', 1500), 'conditionalUILogin (stored process)');
      expect(finish.passkeyOperation).toMatchObject({ operationType: 'verify', identifierValue: ALICE });
      await expectLoginTokens(finish, aliceId);
    });

    it('c. directs an identifier without passkeys to the fallback', async () => {
      const start = ok(await sdk.call('loginStart', 'nobody@example.com', 'text-field', 100), 'loginStart');
      expect(start.assertionOptions).toBe('');
      expect(start.fallbackOperationError).toMatchObject({ initFallback: true, identifier: 'nobody@example.com' });
    });

    it('d. logs in through conditional UI (passkey autofill)', async () => {
      expect(aliceId, 'needs the passkey of scenario a').toBeDefined();
      await sdk.call('clearLocalState');
      const init = ok(await sdk.call('loginInit'), 'loginInit');
      expect(init.loginAllowed).toBe(true);
      expect(init.conditionalUIChallenge, 'loginInit returns a conditionalUIChallenge').toEqual(expect.any(String));
      expect(JSON.parse(init.conditionalUIChallenge).publicKey).toMatchObject({ rpId: 'localhost', challenge: expect.any(String) });

      // The user focuses the webauthn field; Chromium's virtual authenticator (automatic presence
      // simulation) then answers the conditional get with its only credential, without a picker.
      await sdk.page.focus('#username');
      const finish = ok(await sdk.call('conditionalUILogin', 1500), 'conditionalUILogin');
      expect(finish.passkeyOperation).toMatchObject({ operationType: 'verify', identifierValue: ALICE });
      await expectLoginTokens(finish, aliceId);
    });

    it('e. lists and deletes the passkey with passkey-list and passkey-delete tokens', async () => {
      expect(aliceId, 'needs the passkey of scenario a').toBeDefined();
      const init = ok(await sdk.call('manageInit'), 'manageInit');
      expect(init.manageAllowed).toBe(true);
      expectExpiresAtInSeconds(init.expiresAt);

      // userID is the WebAuthn user handle (base64url): the SDK passes it with rpID to
      // PublicKeyCredential.signalAllAcceptedCredentials (asked for here), which then keeps the credential.
      const [cred] = await sdk.credentials();
      const list = ok(await sdk.call('manageList', (await connectToken('passkey-list', ALICE)).secret, true), 'manageList');
      expect(list).toMatchObject({ rpID: 'localhost', userID: Buffer.from(cred!.userHandle!, 'base64').toString('base64url') });
      expect(await sdk.credentials()).toHaveLength(1);
      expect(list.passkeys).toHaveLength(1);
      const passkey = list.passkeys[0];
      expect(passkey.credentialID).toBe(credentialIdBase64url);
      expect(passkey).toMatchObject({ id: expect.any(String), status: expect.any(String) });

      // As @corbado/connect-react's passkey list does: manageDelete(token, passkey.id); the answer names it.
      const del = ok(await sdk.call('manageDelete', (await connectToken('passkey-delete', ALICE)).secret, passkey.id), 'manageDelete');
      expect(del).toEqual({ credentialID: passkey.id });

      const after = ok(await sdk.call('manageList', (await connectToken('passkey-list', ALICE)).secret), 'manageList after delete');
      expect(after.passkeys).toEqual([]);

      const start = ok(await sdk.call('loginStart', ALICE, 'text-field', 100), 'loginStart after delete');
      expect(start.assertionOptions).toBe('');
      expect(start.fallbackOperationError).toMatchObject({ initFallback: true, identifier: ALICE });
    });

    it('g. conditional UI with a passkey the server no longer has ends in an error (404 credential_deleted), not a session', async () => {
      expect(credentialIdBase64url, 'needs the passkey of scenario a').toBeDefined();
      // The virtual authenticator still holds the credential that scenario e deleted on the server.
      expect(await sdk.credentials()).toHaveLength(1);
      await sdk.call('clearLocalState');
      const init = ok(await sdk.call('loginInit'), 'loginInit');
      expect(init.conditionalUIChallenge).toEqual(expect.any(String));
      await sdk.page.focus('#username');
      // login/finish answers 404 credential_deleted, as web-core 2.x (connect-react 0.2.x) needs it to
      // fall back (connectReact.test.ts); web-core 3.x returns any 4xx to its caller as an error.
      const res = await sdk.call('conditionalUILogin', 1500);
      expect(res.ok, `conditionalUILogin with a deleted passkey answered ${JSON.stringify(res)}`).toBe(false);
      if (!res.ok) {
        expect(res.err.type).toBe('InvalidState');
        expect(JSON.parse(res.err.message)).toMatchObject({ httpStatusCode: 404, error: { type: 'credential_deleted' } });
      }
      await sdk.flush();
      expect(sdk.exchanges.filter((e) => new URL(e.url).pathname === '/v2/connect/login/finish').map((e) => e.status)).toEqual([404]);
    });

    it('records an explicit append abort (the event endpoint answers)', async () => {
      ok(await sdk.call('appendInit'), 'appendInit');
      const res = await sdk.call('recordEventAppendExplicitAbort');
      ok(res, 'recordEventAppendExplicitAbort');
    });
  });

  describe('roll-out', () => {
    it('h. with roll-out "invited", the flows open only after setInvitation()', async () => {
      const invited = await stack.createProject('web-core-invited', [pageServer.origin]);
      await projectCli(['connect-settings', '--project', invited.projectID, '--rollout', 'invited']);
      const { invitationToken } = (await projectCli(['invite', '--project', invited.projectID])) as { invitationToken: string };
      const page = await openSdkPage(browser, pageServer.url(invited.projectID, invited.frontendApiUrl));
      current = page;
      try {
        expect(ok(await page.call('loginInit'), 'loginInit without invitation', page)).toMatchObject({ loginAllowed: false });
        expect(ok(await page.call('appendInit'), 'appendInit without invitation', page)).toMatchObject({ appendAllowed: false });
        await page.call('setInvitation', invitationToken);
        // The SDK drops its stored "not allowed" login data when an invitation is present and asks again.
        expect(ok(await page.call('loginInit'), 'loginInit with invitation', page)).toMatchObject({ loginAllowed: true });
        await page.call('clearLocalState');
        await page.call('setInvitation', invitationToken);
        expect(ok(await page.call('appendInit'), 'appendInit with invitation', page)).toMatchObject({ appendAllowed: true });
        expect(ok(await page.call('manageInit'), 'manageInit with invitation', page)).toMatchObject({ manageAllowed: true });
      } finally {
        await page.flush();
        await page.close();
      }
    });
  });

  describe('answers', () => {
    it('every 200 answer the SDK received has the fields and values its own response types declare', () => {
      const types = loadSdkTypes();
      const seen = new Set<string>();
      const problems: string[] = [];
      for (const ex of traffic) {
        const path = new URL(ex.url).pathname;
        const type = CONNECT_RESPONSE_TYPES[path];
        if (!type || ex.status !== 200) continue;
        seen.add(path);
        const body = JSON.parse(ex.responseBody);
        const report = checkShape(types, body, type);
        problems.push(...report.problems.map((p) => `${ex.test}: POST ${path}: ${p}`));
      }
      expect(problems).toEqual([]);
      expect([...seen].sort()).toEqual(Object.keys(CONNECT_RESPONSE_TYPES).sort());
    });
  });

  describe('origins', () => {
    it('f. a page on an origin the project does not allow cannot call the frontend API (CORS)', async () => {
      const otherOrigin = pageServer.origin.replace('localhost', '127.0.0.1');
      const preflight = await fetch(`${project.frontendApiUrl}/v2/connect/login/init`, {
        method: 'OPTIONS',
        headers: { origin: otherOrigin, 'access-control-request-method': 'POST', 'access-control-request-headers': SDK_HEADERS.join(',') },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      const other = await openSdkPage(browser, pageServer.url(project.projectID, project.frontendApiUrl, '127.0.0.1'));
      current = other;
      try {
        const res = await other.call('loginInit');
        expect(res.ok, `loginInit from ${otherOrigin} answered ${JSON.stringify(res)}`).toBe(false);
        if (!res.ok) expect(res.err.type).toBe('RequestTimeout'); // axios ERR_NETWORK: the browser refused the response
        expect(other.log.join('\n')).toMatch(/CORS|Access-Control-Allow-Origin|net::ERR_FAILED/i);
      } finally {
        await other.close();
      }
    });
  });
});
