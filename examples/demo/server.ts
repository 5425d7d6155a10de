/**
 * The demo relying party: a small web app that signs users in with passkeys through the auth
 * service, the way an application integrates it.
 *
 *   /          passkey-first sign-up and login (frontend API auth flow, conditional UI)
 *   /account   the signed-in user: profile, passkeys, identifiers, session check by this server
 *   /connect   an app with its own password login that adds passkeys with the connect flows
 *   /backend   the backend-API ceremonies (B2–B7) run by this server
 *   /web-js    the published @corbado/web-js, unchanged: its auth UI and passkey list
 *
 * Two projects: `/`, `/account` and `/web-js` use the self-service project (`project`); `/connect`
 * and `/backend`, where this app creates and vouches for its users, use the connect project
 * (`connectProject`), which does not serve the self-service sign-up: there anyone could sign up
 * with someone else's address, and a connect login for that address would find the impostor.
 *
 * The page scripts (browser/*.ts, with @simplewebauthn/browser) are bundled with esbuild when the
 * server starts and served from memory; nothing is loaded from a CDN. The server keeps its state
 * (password users, cookie sessions) in memory only.
 */
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { backendApi, tokenVerifier, type DemoProject } from './backendApi.js';
import { PasswordUsers } from './passwords.js';
import { apiRoutes, AppSessions, errorAnswer, HttpError } from './routes.js';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface DemoOptions {
  /** 0 picks a free port. */
  port: number;
  /** Interface to listen on; 127.0.0.1 by default. */
  host?: string;
  /** The self-service project (sign-up/login, account and web-js pages). */
  project: DemoProject;
  /** The connect project (connect and backend-API pages); self-service sign-up is off there. */
  connectProject: DemoProject;
  /** The mail catcher's inbox, linked from the code step (e.g. http://127.0.0.1:1080). */
  mailInboxUrl?: string;
  /** `frontendApiUrlSuffix` for the web-js page (`localhost:8443`, the TLS front); without it that page says it cannot work. */
  webSdkUrlSuffix?: string;
  /** Gets one line per API request (main.ts prints them); failures go to console.error regardless. */
  log?: (line: string) => void;
}

export interface DemoServer {
  /** http://localhost:<port>: a secure context whose WebAuthn RP ID is `localhost`. */
  url: string;
  close(): Promise<void>;
}

/** The pages by path, with their file and their name in the navigation, in navigation order. */
const PAGES: { path: string; file: string; nav: string; project: 'selfService' | 'connect' }[] = [
  { path: '/', file: 'index.html', nav: 'Sign up &amp; log in', project: 'selfService' },
  { path: '/account', file: 'account.html', nav: 'Account', project: 'selfService' },
  { path: '/connect', file: 'connect.html', nav: 'Connect: password app', project: 'connect' },
  { path: '/backend', file: 'backend.html', nav: 'Backend API', project: 'connect' },
  { path: '/web-js', file: 'web-js.html', nav: 'Corbado web-js', project: 'selfService' },
];
const ENTRY_POINTS = ['login', 'account', 'connect', 'backend'];
const MAX_BODY_BYTES = 64 * 1024;

interface Asset {
  type: string;
  body: string | Buffer;
}

export async function startDemo(opts: DemoOptions): Promise<DemoServer> {
  const { project, connectProject } = opts;
  const assets = await loadAssets();
  // The web SDK's bundle (React and all) takes esbuild over a second of CPU, which `npm start`
  // should not spend while its processes start: it is built when the web-js page is first asked
  // for, and its script's request waits for it.
  let webJsAssets: Promise<Map<string, Asset>> | undefined;
  const webJsBundle = (): Promise<Map<string, Asset>> => {
    if (!webJsAssets) {
      webJsAssets = loadWebJsAssets();
      // A failed build is logged once and answered as 500 to its requests (the handler's catch).
      webJsAssets.catch((err: unknown) => console.error('demo: could not bundle the web-js page:', err));
    }
    return webJsAssets;
  };
  const webSdkUrlSuffix = opts.webSdkUrlSuffix ?? '';
  const pages = await loadPages({ selfService: project, connect: connectProject }, { mailInboxUrl: opts.mailInboxUrl ?? '', webSdkUrlSuffix });
  const routes = apiRoutes({
    selfService: { backend: backendApi(project), tokens: tokenVerifier(project) },
    connect: { backend: backendApi(connectProject), tokens: tokenVerifier(connectProject) },
    users: new PasswordUsers(),
    sessions: new AppSessions(),
  });
  const frontendOrigins = [...new Set([project, connectProject].map((p) => new URL(p.frontendApiUrl).origin))].join(' ');
  const policy = (styleSrc: string) =>
    [
      "default-src 'self'",
      // The web SDK calls https://{projectID}.{suffix} first and then the URL the frontend API
      // names, which is the project's frontend API URL.
      `connect-src 'self' ${frontendOrigins}${webSdkUrlSuffix ? ` https://${project.projectID}.${webSdkUrlSuffix}` : ''}`,
      "img-src 'self' data:",
      "script-src 'self'",
      styleSrc,
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; ');
  const securityHeaders = {
    'content-security-policy': policy("style-src 'self'"),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
  // web-js's components write <style> elements of their theme, so its page allows inline styles
  // (scripts stay 'self' only). Its stylesheet's @import of Google Fonts stays blocked: the demo
  // loads nothing from other hosts, and the SDK falls back to system fonts.
  const webJsPolicy = policy("style-src 'self' 'unsafe-inline'");

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://demo.invalid').pathname;
    for (const [k, v] of Object.entries(securityHeaders)) res.setHeader(k, v);

    if (path === '/healthz') return send(res, 200, 'application/json', '{"status":"ok"}');

    if (path.startsWith('/api/')) {
      const route = routes[`${req.method} ${path}`];
      const started = Date.now();
      let status = 200;
      try {
        if (!route) throw new HttpError(404, 'not_found', `No API ${req.method} ${path}.`);
        const body = req.method === 'POST' ? await readJson(req) : {};
        const answer = await route({ req, res, body });
        sendJson(res, 200, answer);
      } catch (err) {
        const e = errorAnswer(err);
        status = e.status;
        if (status >= 500) console.error(`demo: ${req.method} ${path} failed:`, err);
        sendJson(res, status, { error: { code: e.code, message: e.message } });
      }
      opts.log?.(`${req.method} ${path} ${status} ${Date.now() - started} ms`);
      return;
    }

    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed', { allow: 'GET, HEAD' });
    const page = pages.get(path);
    if (path === '/web-js') void webJsBundle().catch(() => undefined);
    if (page) return send(res, 200, 'text/html; charset=utf-8', page, { 'cache-control': 'no-store', ...(path === '/web-js' ? { 'content-security-policy': webJsPolicy } : {}) });
    const asset = assets.get(path) ?? (path.startsWith('/assets/webJs.') ? (await webJsBundle()).get(path) : undefined);
    if (asset) return send(res, 200, asset.type, asset.body, { 'cache-control': 'no-cache' });
    if (path === '/favicon.ico') return send(res, 204, 'text/plain', '');
    return send(res, 404, 'text/plain; charset=utf-8', 'not found');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      console.error('demo: request failed:', err);
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The page scripts bundled as ES modules (shared code in chunks) and the stylesheet, by URL path. */
async function loadAssets(): Promise<Map<string, Asset>> {
  const outdir = join(HERE, 'assets');
  const result = await build({
    entryPoints: Object.fromEntries(ENTRY_POINTS.map((name) => [name, join(HERE, 'browser', `${name}.ts`)])),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outdir,
    chunkNames: 'chunk-[hash]',
    sourcemap: 'linked',
    write: false,
    logLevel: 'silent',
  });
  const assets = new Map<string, Asset>();
  for (const file of result.outputFiles) {
    const type = file.path.endsWith('.map') ? 'application/json' : 'text/javascript; charset=utf-8';
    assets.set(`/assets/${basename(file.path)}`, { type, body: Buffer.from(file.contents) });
  }
  assets.set('/assets/style.css', { type: 'text/css; charset=utf-8', body: await readFile(join(HERE, 'pages', 'style.css')) });
  // The web SDK's own stylesheet, as published.
  assets.set('/assets/web-js.css', { type: 'text/css; charset=utf-8', body: await readFile(createRequire(import.meta.url).resolve('@corbado/web-js/dist/bundle/index.css')) });
  return assets;
}

/**
 * The web-js page's script with the published SDK bundled in (minified: it is mostly React and the
 * SDK, not code of this demo), by URL path.
 */
async function loadWebJsAssets(): Promise<Map<string, Asset>> {
  const result = await build({
    entryPoints: { webJs: join(HERE, 'browser', 'webJs.ts') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    outdir: join(HERE, 'assets'),
    sourcemap: 'linked',
    write: false,
    logLevel: 'silent',
  });
  const assets = new Map<string, Asset>();
  for (const file of result.outputFiles) {
    const type = file.path.endsWith('.map') ? 'application/json' : 'text/javascript; charset=utf-8';
    assets.set(`/assets/${basename(file.path)}`, { type, body: Buffer.from(file.contents) });
  }
  return assets;
}

/**
 * The HTML pages with the page configuration (public values only) in a JSON script element and the
 * shared site header (skip link, navigation with the current page marked for screen readers).
 */
async function loadPages(projects: Record<'selfService' | 'connect', DemoProject>, config: { mailInboxUrl: string; webSdkUrlSuffix: string }): Promise<Map<string, string>> {
  const pages = new Map<string, string>();
  for (const { path, file, project } of PAGES) {
    const { projectID, frontendApiUrl } = projects[project];
    const json = JSON.stringify({ projectID, frontendApiUrl, ...config }).replace(/</g, '\\u003c');
    const tag = `<script id="demo-config" type="application/json">${json}</script>`;
    const html = await readFile(join(HERE, 'pages', file), 'utf8');
    pages.set(path, html.replace('<!-- demo-config -->', tag).replace('<!-- demo-header -->', siteHeader(path)));
  }
  return pages;
}

function siteHeader(current: string): string {
  const links = PAGES.map(({ path, nav }) => `        <li><a href="${path}"${path === current ? ' aria-current="page"' : ''}>${nav}</a></li>`);
  return [
    '<a class="skip-link" href="#main">Skip to content</a>',
    '  <header class="site">',
    '    <a class="brand" href="/">Passkey demo</a>',
    '    <nav aria-label="Demo pages">',
    '      <ul>',
    ...links,
    '      </ul>',
    '    </nav>',
    '  </header>',
  ].join('\n');
}

async function readJson(req: IncomingMessage): Promise<Record<string, any>> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) throw new HttpError(415, 'json_required', 'Send the request as application/json.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'body_too_large', `The request body is over ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'json_invalid', 'The request body is not valid JSON.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new HttpError(400, 'json_invalid', 'The request body must be a JSON object.');
  return value as Record<string, any>;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body), { 'cache-control': 'no-store' });
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
