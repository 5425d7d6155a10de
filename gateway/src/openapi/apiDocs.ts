/**
 * Serves the API reference of a listener: `GET /openapi.json` (that listener's routes only) and a
 * browsable page at `GET /docs`, Swagger UI from the installed swagger-ui-dist package (never a
 * CDN) under `/docs/`, with a Content-Security-Policy that allows nothing but this origin.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Listener, Route } from '../routeTable.js';
import { buildOpenApi, type OpenApiOptions } from './buildOpenApi.js';

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

/**
 * Swagger UI styles some elements with inline SVG data: URIs in its stylesheet, hence `img-src data:`;
 * everything else (scripts, styles, the document fetch) comes from this origin only.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The files of swagger-ui-dist the page needs; nothing else of the package is served. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** Starts Swagger UI on the page; a file, because the CSP forbids inline scripts. */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

const TITLES: Record<Listener, string> = { frontend: 'passkeyauth frontend API reference', backend: 'passkeyauth backend API reference' };

// Paths relative to /docs, so the page also works behind a proxy that adds a path prefix.
const page = (listener: Listener) => `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${TITLES[listener]}</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="icon" type="image/png" href="docs/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="docs/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

/** The directory of the installed swagger-ui-dist package (resolved, not imported: its index loads the whole bundle). */
export function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

export interface ApiDocs {
  /** Whether `path` is one of the documentation paths (checked before routing, like /healthz). */
  handles(path: string): boolean;
  serve(listener: Listener, path: string, res: ServerResponse): Promise<void>;
}

export function createApiDocs(routes: Route[], options: OpenApiOptions = {}): ApiDocs {
  const clash = routes.find((r) => r.template === OPENAPI_PATH || r.template === DOCS_PATH || r.template.startsWith(`${DOCS_PATH}/`));
  if (clash) throw new Error(`route ${clash.httpMethod} ${clash.template} clashes with the API reference paths`);
  // Built once, at start-up: the routes never change, and a document that cannot be built fails early.
  const documents: Record<Listener, string> = {
    frontend: JSON.stringify(buildOpenApi(routes, 'frontend', options)),
    backend: JSON.stringify(buildOpenApi(routes, 'backend', options)),
  };
  const files = new Map<string, Promise<Buffer>>();
  const assetDir = swaggerUiDir();

  const asset = (name: string): Promise<Buffer> => {
    let file = files.get(name);
    if (!file) {
      file = readFile(join(assetDir, name));
      // A failed read is retried next time rather than cached.
      file.catch(() => files.delete(name));
      files.set(name, file);
    }
    return file;
  };

  return {
    handles(path) {
      if (path === OPENAPI_PATH || path === DOCS_PATH) return true;
      if (!path.startsWith(`${DOCS_PATH}/`)) return false;
      const name = path.slice(DOCS_PATH.length + 1);
      return name === '' || name === 'init.js' || Object.hasOwn(ASSETS, name);
    },
    async serve(listener, path, res) {
      res.setHeader('x-content-type-options', 'nosniff');
      if (path === OPENAPI_PATH) return send(res, 'application/json', documents[listener], 'no-cache');
      if (path === `${DOCS_PATH}/`) {
        res.writeHead(301, { location: '../docs' }).end();
        return;
      }
      res.setHeader('content-security-policy', DOCS_CSP);
      res.setHeader('referrer-policy', 'no-referrer');
      res.setHeader('x-frame-options', 'DENY');
      if (path === DOCS_PATH) return send(res, 'text/html; charset=utf-8', page(listener), 'no-cache');
      if (path === `${DOCS_PATH}/init.js`) return send(res, 'text/javascript; charset=utf-8', INIT_SCRIPT, 'no-cache');
      const name = path.slice(DOCS_PATH.length + 1);
      send(res, ASSETS[name], await asset(name), 'public, max-age=3600');
    },
  };
}

function send(res: ServerResponse, contentType: string, body: string | Buffer, cacheControl: string): void {
  res.writeHead(200, { 'content-type': contentType, 'cache-control': cacheControl });
  res.end(body);
}
