/**
 * Browser page script for the @corbado/web-js drop-in test: the published `Corbado` object
 * (web-js 3.5.0 with @corbado/react and @corbado/web-core, bundled unchanged) loaded with the query
 * string's projectId and frontendApiUrlSuffix, its UI components mounted into #corbado, and its
 * session reported on `window.webjs` for the test to read with page.evaluate. Bundled for the
 * browser by ../sdkPage.ts (startSdkPage('webJsPage.ts')).
 *
 * Telemetry is off: web-js passes the second argument of Corbado.load to @corbado/react's
 * CorbadoProvider as `telemetry`, and `{ disabled: true }` (or `false`) stops its events to
 * https://telemetry.cloud.corbado.io/v1/.
 */
import * as WebJs from '@corbado/web-js';
import type { Corbado as CorbadoInstance } from '@corbado/web-js/dist/core/Corbado.js';

/**
 * The published singleton, the package's default export. The package is ES modules without
 * "type": "module", so TypeScript reads it as CommonJS (default = the whole module); esbuild
 * bundles it as the ES module it is.
 */
const Corbado = WebJs.default as unknown as CorbadoInstance;

const params = new URLSearchParams(location.search);
const projectId = params.get('projectId') ?? '';
const frontendApiUrlSuffix = params.get('frontendApiUrlSuffix') ?? '';

// The shared test page has an email field of its own; the SDK's components bring theirs.
document.querySelector('form')?.remove();
const root = document.createElement('div');
root.id = 'corbado';
document.body.appendChild(root);

/** What the page saw: onLoggedIn calls and the last error of a helper. */
const seen = { loggedIn: 0, errors: [] as string[] };

/** web-js types sessionToken as a string; 3.5.0 hands out web-core's SessionToken (its `value` is the JWT). */
function tokenValue(t: unknown): string | null {
  if (typeof t === 'string') return t;
  return (t as { value?: string } | undefined)?.value ?? null;
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : JSON.stringify(err);
}

const webjs = {
  async load(): Promise<boolean> {
    try {
      await Corbado.load({ projectId, frontendApiUrlSuffix, darkMode: 'off', defaultLanguage: 'en', autoDetectLanguage: false } as Parameters<CorbadoInstance['load']>[0], { disabled: true });
      return true;
    } catch (err) {
      seen.errors.push(`load: ${describe(err)}`);
      return false;
    }
  },
  mountAuthUI(): void {
    Corbado.mountAuthUI(root, { onLoggedIn: () => (seen.loggedIn += 1) });
  },
  mountLoginUI(): void {
    Corbado.mountLoginUI(root, { onLoggedIn: () => (seen.loggedIn += 1) } as Parameters<CorbadoInstance['mountLoginUI']>[1]);
  },
  mountSignUpUI(): void {
    Corbado.mountSignUpUI(root, { onSignedUp: () => (seen.loggedIn += 1) } as Parameters<CorbadoInstance['mountSignUpUI']>[1]);
  },
  mountPasskeyListUI(): void {
    Corbado.mountPasskeyListUI(root);
  },
  mountUserUI(): void {
    Corbado.mountUserUI(root);
  },
  unmount(): void {
    // Each mount* unmounts what the element held before, so one unmount covers every component.
    Corbado.unmountAuthUI(root);
  },
  async logout(): Promise<void> {
    await Corbado.logout();
  },
  state() {
    return {
      isAuthenticated: Corbado.isAuthenticated,
      sessionToken: tokenValue(Corbado.sessionToken as unknown),
      user: Corbado.user ?? null,
      loggedIn: seen.loggedIn,
      errors: [...seen.errors],
      cookie: document.cookie,
      refreshToken: localStorage.getItem('cbo_refresh_token'),
    };
  },
  async getPasskeys(): Promise<{ ok: boolean; val: unknown }> {
    const r = await Corbado.getPasskeys();
    return { ok: r.ok, val: r.ok ? r.val : describe(r.val) };
  },
  async deletePasskey(id: string): Promise<{ ok: boolean; val: unknown }> {
    const r = await Corbado.deletePasskey(id);
    return { ok: r.ok, val: r.ok ? null : describe(r.val) };
  },
  async getFullUser(): Promise<{ ok: boolean; val: unknown }> {
    const r = await Corbado.getFullUser();
    return { ok: r.ok, val: r.ok ? r.val : describe(r.val) };
  },
};

export type WebJsHelpers = typeof webjs;

declare global {
  interface Window {
    webjs: WebJsHelpers;
    webjsReady: boolean;
  }
}

window.webjs = webjs;
window.webjsReady = true;
