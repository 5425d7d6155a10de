/**
 * Headless Chromium (Debian's, via playwright-core) with a CDP virtual WebAuthn authenticator: a
 * platform authenticator with user verification and resident keys that answers every ceremony by
 * itself. The authenticator is added before the page loads, so the SDK sees
 * isUserVerifyingPlatformAuthenticatorAvailable() === true when it describes the client.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import type { PageResult, SdkHelpers } from './page/connectPage.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Why the browser tests cannot run here, or null when they can. CI (or PASSKEYAUTH_REQUIRE_CHROMIUM=1)
 * turns a missing browser into a failure instead of a skip.
 */
export function chromiumMissing(): string | null {
  if (existsSync(CHROMIUM_PATH)) return null;
  return `Chromium not found at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install chromium, as .ci/run does) or set CHROMIUM_PATH`;
}

export function chromiumRequired(): boolean {
  return Boolean(process.env.CI) || process.env.PASSKEYAUTH_REQUIRE_CHROMIUM === '1';
}

export interface LaunchOptions {
  /**
   * A CA certificate (PEM) the browser trusts, added to the NSS database of a fresh home
   * directory as docs/web-sdks.md tells developers to do for the TLS front's local CA (Chromium on
   * Linux reads its trusted roots from $HOME/.pki/nssdb). Needs certutil (libnss3-tools).
   */
  trustedCaPem?: string;
}

export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  const home = options.trustedCaPem ? homeTrusting(options.trustedCaPem) : undefined;
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    ...(home ? { env: { ...process.env, HOME: home } } : {}),
  });
  if (home) browser.on('disconnected', () => rmSync(home, { recursive: true, force: true }));
  return browser;
}

/** A temporary home directory whose NSS database trusts `caPem` for TLS servers. */
function homeTrusting(caPem: string): string {
  const home = mkdtempSync(join(tmpdir(), 'chromium-home-'));
  const db = join(home, '.pki', 'nssdb');
  mkdirSync(db, { recursive: true });
  const caFile = join(home, 'ca.pem');
  writeFileSync(caFile, caPem);
  try {
    execFileSync('certutil', ['-d', `sql:${db}`, '-N', '--empty-password'], { stdio: 'pipe' });
    execFileSync('certutil', ['-d', `sql:${db}`, '-A', '-t', 'C,,', '-n', 'passkeyauth local development CA', '-i', caFile], { stdio: 'pipe' });
  } catch (err) {
    rmSync(home, { recursive: true, force: true });
    throw new Error(`certutil could not add the CA to the browser's trust store (apt-get install libnss3-tools, as .ci/run does): ${(err as Error).message}`, { cause: err });
  }
  return home;
}

/** A credential as WebAuthn.getCredentials reports it (credentialId and userHandle are base64). */
export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  userHandle?: string;
  userName?: string;
  signCount: number;
  privateKey: string;
}

/** A credential with its ID also as base64url (the form WebAuthn options and the API use). */
export type Credential = VirtualCredential & { credentialIdBase64url: string };

/** A platform authenticator (ctap2, internal) with resident keys and user verification that answers every ceremony by itself. */
export const PLATFORM_AUTHENTICATOR = {
  protocol: 'ctap2',
  transport: 'internal',
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
  automaticPresenceSimulation: true,
} as const;

type Helper = keyof SdkHelpers;

/** One HTTP exchange of the page with the API, as the browser saw it. */
export interface Exchange {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody: string | null;
  status: number;
  responseBody: string;
}

/** What a virtual authenticator reported on its own (WebAuthn.credentialAdded/Deleted/Asserted events). */
export interface AuthenticatorEvent {
  type: 'added' | 'deleted' | 'updated' | 'asserted';
  authenticatorId: string;
  /** base64url */
  credentialId: string;
}

/** A browser tab with a CDP virtual authenticator, its log and its API traffic. */
export interface BrowserPage {
  page: Page;
  cdp: CDPSession;
  /** The authenticator added before the page loaded. */
  authenticatorId: string;
  /** Console errors, page errors and failed requests seen so far (for failure messages). */
  log: string[];
  /** The page's API calls (everything not served by the page's own origin), with both bodies. */
  exchanges: Exchange[];
  /** Credentials the authenticators added, deleted (signalUnknownCredential), updated or used. */
  authenticatorEvents: AuthenticatorEvent[];
  /** The page's WebAuthn signal calls (with `recordSignals`). */
  signals: WebAuthnSignal[];
  /** Waits until the bodies of the exchanges seen so far have been read. */
  flush(): Promise<void>;
  /** An authenticator's credentials (default: the first one's), with credentialId also as base64url. */
  credentials(authenticatorId?: string): Promise<Credential[]>;
  removeCredentials(authenticatorId?: string): Promise<void>;
  /** Removes one credential (ID in base64 or base64url). */
  removeCredential(credentialId: string, authenticatorId?: string): Promise<void>;
  /** Puts a credential (as credentials() returned it, private key included) into an authenticator. */
  addCredential(credential: VirtualCredential, authenticatorId?: string): Promise<void>;
  /** Adds another virtual authenticator (default: like the first) and returns its ID. */
  addAuthenticator(options?: Partial<typeof PLATFORM_AUTHENTICATOR>): Promise<string>;
  removeAuthenticator(authenticatorId: string): Promise<void>;
  /** Turns the authenticator's automatic user presence on or off (off: it leaves requests unanswered). */
  setPresence(enabled: boolean, authenticatorId?: string): Promise<void>;
  /** Saves a full-page PNG (creating the directory) and returns the path. */
  screenshot(path: string): Promise<string>;
  close(): Promise<void>;
}

export interface SdkPage extends BrowserPage {
  /** Calls window.sdk[name](...args) in the page. */
  call<T = any>(name: Exclude<Helper, 'environment'>, ...args: unknown[]): Promise<PageResult<T>>;
  environment(): Promise<Awaited<ReturnType<SdkHelpers['environment']>>>;
}

export interface OpenPageOptions {
  /** Waits until the loaded page is usable (default: the load event). */
  ready?: (page: Page, log: string[]) => Promise<unknown>;
  /** Records the page's PublicKeyCredential.signal*() calls in `signals` (they still reach the browser). */
  recordSignals?: boolean;
  /** Receives the URL of every request the page makes, from the first one of the page load on. */
  requests?: string[];
}

/** A call of PublicKeyCredential.signalUnknownCredential, signalAllAcceptedCredentials or signalCurrentUserDetails. */
export interface WebAuthnSignal {
  name: 'signalUnknownCredential' | 'signalAllAcceptedCredentials' | 'signalCurrentUserDetails';
  args: Record<string, unknown>;
  /** The page that called it. */
  url: string;
}

/** Wraps the WebAuthn signal methods in every document of the page so that each call is reported to `signals`. */
async function recordWebAuthnSignals(page: Page, signals: WebAuthnSignal[]): Promise<void> {
  await page.exposeBinding('__recordWebAuthnSignal', ({ frame }, name: WebAuthnSignal['name'], args: string) => {
    signals.push({ name, args: JSON.parse(args) as Record<string, unknown>, url: frame.url() });
  });
  await page.addInitScript(() => {
    const w = window as unknown as { PublicKeyCredential?: Record<string, unknown>; __recordWebAuthnSignal(name: string, args: string): Promise<void> };
    const pkc = w.PublicKeyCredential;
    if (!pkc) return;
    for (const name of ['signalUnknownCredential', 'signalAllAcceptedCredentials', 'signalCurrentUserDetails']) {
      const original = pkc[name];
      if (typeof original !== 'function') continue;
      pkc[name] = function (this: unknown, args: unknown) {
        void w.__recordWebAuthnSignal(name, JSON.stringify(args ?? null));
        return (original as (a: unknown) => unknown).call(this, args);
      };
    }
  });
}

/** Node's base64 decoder reads both alphabets, so this turns base64url into base64 too. */
const toBase64 = (id: string) => Buffer.from(id, 'base64').toString('base64');

/** Opens a tab in a new browser context, adds the virtual authenticator, then loads `url`. */
export async function openPage(browser: Browser, url: string, options: OpenPageOptions = {}): Promise<BrowserPage> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const log: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') log.push(`console.${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => log.push(`pageerror: ${err.message}`));
  page.on('requestfailed', (req) => log.push(`requestfailed: ${req.method()} ${req.url()} ${req.failure()?.errorText ?? ''}`));
  const exchanges: Exchange[] = [];
  const pending: Promise<unknown>[] = [];
  const pageOrigin = new URL(url).origin;
  page.on('response', (rsp) => {
    if (rsp.status() >= 400) log.push(`response ${rsp.status()}: ${rsp.request().method()} ${rsp.url()}`);
    const req = rsp.request();
    if (new URL(rsp.url()).origin === pageOrigin || req.method() === 'OPTIONS') return;
    const ex: Exchange = { method: req.method(), url: rsp.url(), requestHeaders: req.headers(), requestBody: req.postData(), status: rsp.status(), responseBody: '' };
    exchanges.push(ex);
    pending.push(
      req.allHeaders().then((h) => (ex.requestHeaders = h), () => undefined),
      rsp.text().then(
        (t) => (ex.responseBody = t),
        (err: Error) => (ex.responseBody = `(body unavailable: ${err.message})`),
      ),
    );
  });

  if (options.requests) {
    const urls = options.requests;
    page.on('request', (req) => urls.push(req.url()));
  }

  const cdp = await context.newCDPSession(page);
  const authenticatorEvents: AuthenticatorEvent[] = [];
  const b64url = (id: string) => Buffer.from(id, 'base64').toString('base64url');
  cdp.on('WebAuthn.credentialAdded', (e) => authenticatorEvents.push({ type: 'added', authenticatorId: e.authenticatorId, credentialId: b64url(e.credential.credentialId) }));
  cdp.on('WebAuthn.credentialDeleted', (e) => authenticatorEvents.push({ type: 'deleted', authenticatorId: e.authenticatorId, credentialId: b64url(e.credentialId) }));
  cdp.on('WebAuthn.credentialUpdated', (e) => authenticatorEvents.push({ type: 'updated', authenticatorId: e.authenticatorId, credentialId: b64url(e.credential.credentialId) }));
  cdp.on('WebAuthn.credentialAsserted', (e) => authenticatorEvents.push({ type: 'asserted', authenticatorId: e.authenticatorId, credentialId: b64url(e.credential.credentialId) }));
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const addAuthenticator = async (opts: Partial<typeof PLATFORM_AUTHENTICATOR> = {}) =>
    (await cdp.send('WebAuthn.addVirtualAuthenticator', { options: { ...PLATFORM_AUTHENTICATOR, ...opts } })).authenticatorId;
  const authenticatorId = await addAuthenticator();

  const signals: WebAuthnSignal[] = [];
  if (options.recordSignals) await recordWebAuthnSignals(page, signals);

  await page.goto(url);
  if (options.ready) await options.ready(page, log);

  return {
    page,
    cdp,
    authenticatorId,
    log,
    exchanges,
    authenticatorEvents,
    signals,
    async flush() {
      await Promise.all(pending.splice(0));
    },
    async credentials(id = authenticatorId) {
      const { credentials } = (await cdp.send('WebAuthn.getCredentials', { authenticatorId: id })) as { credentials: VirtualCredential[] };
      return credentials.map((c) => ({ ...c, credentialIdBase64url: b64url(c.credentialId) }));
    },
    async removeCredentials(id = authenticatorId) {
      await cdp.send('WebAuthn.clearCredentials', { authenticatorId: id });
    },
    async removeCredential(credentialId, id = authenticatorId) {
      await cdp.send('WebAuthn.removeCredential', { authenticatorId: id, credentialId: toBase64(credentialId) });
    },
    async addCredential(credential, id = authenticatorId) {
      const { credentialId, isResidentCredential, rpId, userHandle, userName, signCount, privateKey } = credential;
      await cdp.send('WebAuthn.addCredential', { authenticatorId: id, credential: { credentialId, isResidentCredential, rpId, userHandle, userName, signCount, privateKey } });
    },
    addAuthenticator,
    async removeAuthenticator(id) {
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: id });
    },
    async setPresence(enabled, id = authenticatorId) {
      await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId: id, enabled });
    },
    async screenshot(path) {
      mkdirSync(dirname(path), { recursive: true });
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await context.close();
    },
  };
}

/** Opens the SDK test page (see sdkPage.ts) with its virtual authenticator and waits for the SDK. */
export async function openSdkPage(browser: Browser, url: string): Promise<SdkPage> {
  const base = await openPage(browser, url, {
    ready: (page, log) =>
      page.waitForFunction(() => window.sdkReady === true, undefined, { timeout: 15_000 }).catch((err: Error) => {
        throw new Error(`the SDK page did not start: ${err.message}\n${log.join('\n')}`, { cause: err });
      }),
  });
  const { page } = base;
  return {
    ...base,
    call(name, ...args) {
      return page.evaluate(([n, a]) => (window.sdk[n as Exclude<Helper, 'environment'>] as (...x: unknown[]) => Promise<PageResult>)(...(a as unknown[])), [name, args] as const) as Promise<PageResult<any>>;
    },
    environment: () => page.evaluate(() => window.sdk.environment()),
  };
}

/** The page's API exchanges, bodies truncated, as a block for a failure report. */
export function formatExchanges(exchanges: Exchange[], max = 2000): string {
  const cut = (t: string | null) => (t && t.length > max ? `${t.slice(0, max)}…(${t.length} chars)` : (t ?? ''));
  return exchanges
    .map((e) => `${e.method} ${e.url}\n  request headers: ${JSON.stringify(e.requestHeaders)}\n  request: ${cut(e.requestBody)}\n  → ${e.status} ${cut(e.responseBody)}`)
    .join('\n');
}

/** Where the browser tests put their screenshots (git ignores it). */
export const ARTIFACTS_DIR = 'test-artifacts/browser';

/**
 * Saves `<prefix>-FAILED-<test name>.png` of the page under ARTIFACTS_DIR after a failed test and
 * returns the path, or why there is none (the page may be closed by then).
 */
export async function failureScreenshot(p: BrowserPage, prefix: string, testName: string): Promise<string> {
  const slug = testName.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').slice(0, 60);
  return p.screenshot(`${ARTIFACTS_DIR}/${prefix}-FAILED-${slug}.png`).catch((err: Error) => `(no screenshot: ${err.message})`);
}

/** The page's log as a block for an assertion message. */
export function pageLog(p: BrowserPage | undefined): string {
  return p && p.log.length > 0 ? `\n--- page log ---\n${p.log.join('\n')}` : '';
}
