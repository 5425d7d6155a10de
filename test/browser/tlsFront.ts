/**
 * The HTTPS front the web SDK tests put before the gateway. The published SDKs have no
 * custom-domain option, only `frontendApiUrlSuffix`: their first calls go to
 * `https://<projectID>.<suffix>`. The front listens on 127.0.0.1 with a self-signed certificate
 * (made with openssl; Chromium runs with --ignore-certificate-errors) and the tests use the suffix
 * `localhost:<port>`; Chromium resolves `<projectID>.localhost` to the loopback address. Every
 * request passes to the gateway unchanged (Host included, so the gateway reads the project from the
 * host name), and every answer comes back unchanged; `requests` records what went through.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A request the front passed to the gateway, with the gateway's status. */
export interface FrontRequest {
  method: string;
  host: string;
  path: string;
  status: number;
}

export interface TlsFront {
  port: number;
  /** `localhost:<port>`: the SDK's frontendApiUrlSuffix. */
  suffix: string;
  requests: FrontRequest[];
  close(): Promise<void>;
}

function makeCertificate(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'tls-front-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'pipe' },
    );
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } catch (err) {
    throw new Error(`openssl could not make the TLS front's certificate: ${(err as Error).message}`, { cause: err });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An HTTPS server on 127.0.0.1 that passes every request unchanged to `target` (an http:// URL). */
export async function startTlsFront(target: string): Promise<TlsFront> {
  const upstream = new URL(target);
  const requests: FrontRequest[] = [];
  const server: HttpsServer = createHttpsServer(makeCertificate(), (req, res) => {
    const seen: FrontRequest = { method: req.method ?? '', host: req.headers.host ?? '', path: req.url ?? '/', status: 0 };
    requests.push(seen);
    const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: seen.path, headers: req.headers }, (up) => {
      seen.status = up.statusCode ?? 0;
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', (err) => {
      seen.status = 502;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`front: ${err.message}`);
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    suffix: `localhost:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
