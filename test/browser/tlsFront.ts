/**
 * A TLS front for SDKs that address the frontend API as `https://<projectID>.<suffix>` before they
 * know its URL (web-core 2.x's ConnectService, which @corbado/connect-react 0.2.x uses, has no
 * custom-domain option). An HTTPS server on 127.0.0.1 with a self-signed certificate (openssl)
 * passes every request unchanged, Host included (the gateway reads the project from it), to the
 * gateway; the SDK is given the suffix `localhost:<port>`, which Chromium resolves to the loopback
 * address. Chromium must run with --ignore-certificate-errors. Unlike the front of
 * corbadoApp.test.ts it answers nothing itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A request the front passed on, with the gateway's status. */
export interface PassedRequest {
  method: string;
  host: string;
  path: string;
  status: number;
}

export interface PassThroughFront {
  /** `localhost:<port>`: the SDK's frontendApiUrlSuffix. */
  suffix: string;
  requests: PassedRequest[];
  close(): Promise<void>;
}

function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
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

/** Starts the front for the gateway at `target` (an http:// URL). */
export async function startPassThroughFront(target: string): Promise<PassThroughFront> {
  const upstream = new URL(target);
  const requests: PassedRequest[] = [];
  const server = createHttpsServer(selfSignedCertificate(), (req, res) => {
    const seen: PassedRequest = { method: req.method ?? '', host: req.headers.host ?? '', path: req.url ?? '/', status: 0 };
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
    suffix: `localhost:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
