/**
 * Headless Chromium (Debian's, via playwright-core) with a CDP virtual WebAuthn authenticator: a
 * platform authenticator with user verification and resident keys that answers every ceremony by
 * itself. The authenticator is added before the page loads, so the SDK sees
 * isUserVerifyingPlatformAuthenticatorAvailable() === true when it describes the client.
 */
import { existsSync } from 'node:fs';
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

export async function launchChromium(): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A credential as WebAuthn.getCredentials reports it (credentialId and userHandle are base64). */
export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  userHandle?: string;
  signCount: number;
  privateKey: string;
}

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

export interface SdkPage {
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
  /** Console errors, page errors and failed requests seen so far (for failure messages). */
  log: string[];
  /** The page's API calls (everything not served by the page's own origin), with both bodies. */
  exchanges: Exchange[];
  /** Waits until the bodies of the exchanges seen so far have been read. */
  flush(): Promise<void>;
  /** Calls window.sdk[name](...args) in the page. */
  call<T = any>(name: Exclude<Helper, 'environment'>, ...args: unknown[]): Promise<PageResult<T>>;
  environment(): Promise<Awaited<ReturnType<SdkHelpers['environment']>>>;
  /** The virtual authenticator's credentials, with credentialId also as base64url. */
  credentials(): Promise<(VirtualCredential & { credentialIdBase64url: string })[]>;
  removeCredentials(): Promise<void>;
  close(): Promise<void>;
}

/** Opens a tab, adds the virtual authenticator, then loads `url` and waits for the SDK. */
export async function openSdkPage(browser: Browser, url: string): Promise<SdkPage> {
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

  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });

  await page.goto(url);
  await page.waitForFunction(() => window.sdkReady === true, undefined, { timeout: 15_000 }).catch((err: Error) => {
    throw new Error(`the SDK page did not start: ${err.message}\n${log.join('\n')}`, { cause: err });
  });

  return {
    page,
    cdp,
    authenticatorId,
    log,
    exchanges,
    async flush() {
      await Promise.all(pending.splice(0));
    },
    call(name, ...args) {
      return page.evaluate(([n, a]) => (window.sdk[n as Exclude<Helper, 'environment'>] as (...x: unknown[]) => Promise<PageResult>)(...(a as unknown[])), [name, args] as const) as Promise<PageResult<any>>;
    },
    environment: () => page.evaluate(() => window.sdk.environment()),
    async credentials() {
      const { credentials } = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as { credentials: VirtualCredential[] };
      return credentials.map((c) => ({ ...c, credentialIdBase64url: Buffer.from(c.credentialId, 'base64').toString('base64url') }));
    },
    async removeCredentials() {
      await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
    },
    async close() {
      await context.close();
    },
  };
}

/** The page's API exchanges, bodies truncated, as a block for a failure report. */
export function formatExchanges(exchanges: Exchange[], max = 2000): string {
  const cut = (t: string | null) => (t && t.length > max ? `${t.slice(0, max)}…(${t.length} chars)` : (t ?? ''));
  return exchanges
    .map((e) => `${e.method} ${e.url}\n  request headers: ${JSON.stringify(e.requestHeaders)}\n  request: ${cut(e.requestBody)}\n  → ${e.status} ${cut(e.responseBody)}`)
    .join('\n');
}

/** The page's log as a block for an assertion message. */
export function pageLog(p: SdkPage | undefined): string {
  return p && p.log.length > 0 ? `\n--- page log ---\n${p.log.join('\n')}` : '';
}
