/**
 * Serves the web SDK test page: bundles a page script (default page/connectPage.ts; also
 * page/corbadoAppPage.ts) with the published @corbado/web-core
 * for the browser with esbuild, in process, and serves index.html plus the bundle from a node:http
 * server on 127.0.0.1 (port 0). Open it as http://localhost:<port>/ so that the page is a secure
 * context and its WebAuthn RP ID is `localhost`; http://127.0.0.1:<port>/ is the same page under a
 * different origin.
 */
import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** page/<entry>.ts is served as /<entry>.js. */
const scriptName = (entry: string) => entry.replace(/\.ts$/, '.js');

/** The test page for a page script (an entry of page/, served as /<name>.js). */
export const indexHtml = (entry = 'connectPage.ts') => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>web-core test page (${entry})</title></head>
<body>
  <form onsubmit="return false">
    <label for="username">Email</label>
    <input id="username" name="username" type="text" autocomplete="username webauthn">
  </form>
  <script src="/${scriptName(entry)}"></script>
</body>
</html>
`;

export interface SdkPageServer {
  port: number;
  /** http://localhost:<port> — the origin to allow in the project. */
  origin: string;
  /** The page URL for a project and a frontend API URL (on `origin`, or on another host name). */
  url(projectId: string, frontendApiUrl: string, host?: string): string;
  close(): Promise<void>;
}

/** Bundles a page script of page/ (an IIFE, not minified, with an inline source map). */
export async function bundlePageScript(entry = 'connectPage.ts'): Promise<string> {
  const result = await build({
    entryPoints: [join(HERE, 'page', entry)],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    sourcemap: 'inline',
    write: false,
    logLevel: 'silent',
    // @corbado/shared-ui (under @corbado/web-js) finds its assets from import.meta.url, which an
    // IIFE does not have: the page's own URL stands in (its icons are then not found, which only
    // the look of the UI notices).
    define: { 'process.env.NODE_ENV': '"development"', 'import.meta.url': 'location.href' },
  });
  const out = result.outputFiles[0];
  if (!out) throw new Error('esbuild produced no output for the page script');
  return out.text;
}

/** Serves the page with the script `entry` (a file of page/, default connectPage.ts). */
export async function startSdkPage(entry = 'connectPage.ts'): Promise<SdkPageServer> {
  const script = await bundlePageScript(entry);
  const html = indexHtml(entry);
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://page.invalid').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
    } else if (path === '/' || path === '/index.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
    } else if (path === `/${scriptName(entry)}`) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' }).end(script);
    } else if (path === '/favicon.ico') {
      res.writeHead(204).end();
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://localhost:${port}`;
  return {
    port,
    origin,
    url(projectId, frontendApiUrl, host = 'localhost') {
      const q = new URLSearchParams({ projectId, frontendApiUrl });
      return `http://${host}:${port}/?${q.toString()}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
