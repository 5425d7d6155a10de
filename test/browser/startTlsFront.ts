/**
 * The TLS front of `npm start` (deploy/local/tls/serveTlsFront.ts) before a test's stack. The
 * published SDKs have no custom-domain option, only `frontendApiUrlSuffix`: their first calls go to
 * `https://<projectID>.<suffix>`. The test uses the suffix `localhost:<port>` (Chromium resolves
 * `<projectID>.localhost` to the loopback address), and the front does what it does for a
 * developer: a certificate per `*.localhost` name from a local CA (made here in a temporary
 * directory instead of .local/tls), each connection relayed byte for byte to the gateway's
 * frontend listener, so the gateway reads the project from the Host header. The browser trusts the
 * CA as docs/web-sdks.md tells developers to (launchChromium's `trustedCaPem`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadLocalCertificateAuthority } from '../../deploy/local/tls/loadLocalCertificateAuthority.js';
import { serveTlsFront } from '../../deploy/local/tls/serveTlsFront.js';

export interface TlsFront {
  port: number;
  /** `localhost:<port>`: the SDK's frontendApiUrlSuffix. */
  suffix: string;
  /** The local CA's certificate, for the browser to trust. */
  caPem: string;
  /** Connections the front refused or could not pass on (a test expects none). */
  refused: string[];
  close(): Promise<void>;
}

/** Starts the front on a free port of 127.0.0.1 before the gateway's frontend listener at `frontendUrl` (http://…). */
export async function startTlsFront(frontendUrl: string): Promise<TlsFront> {
  const target = new URL(frontendUrl);
  const caDir = mkdtempSync(join(tmpdir(), 'tls-front-ca-'));
  const refused: string[] = [];
  try {
    const ca = await loadLocalCertificateAuthority(caDir);
    const front = await serveTlsFront({ ca, port: 0, hosts: ['127.0.0.1'], target: { host: target.hostname, port: Number(target.port) }, log: (line) => refused.push(line) });
    return {
      port: front.port,
      suffix: `localhost:${front.port}`,
      caPem: ca.certificatePem,
      refused,
      async close() {
        await front.close();
        rmSync(caDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(caDir, { recursive: true, force: true });
    throw err;
  }
}
