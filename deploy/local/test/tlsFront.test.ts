/**
 * The TLS front of `npm start` (deploy/local/tls): a local CA made once and reused (for its year), certificates
 * issued per `*.localhost` name, and connections relayed byte for byte to a plain-HTTP target.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueHostCertificate } from '../tls/issueHostCertificate.js';
import { isLocalhostName } from '../tls/isLocalhostName.js';
import { isLoopbackAddress } from '../tls/isLoopbackAddress.js';
import { loadLocalCertificateAuthority, type LocalCertificateAuthority } from '../tls/loadLocalCertificateAuthority.js';
import { serveTlsFront, type TlsFront } from '../tls/serveTlsFront.js';
import { forgeCertificate, nodeHandshake } from './forgeCertificate.js';

interface Seen {
  method: string;
  url: string;
  host: string;
  body: string;
}

let dir: string;
let ca: LocalCertificateAuthority;
let target: HttpServer;
let front: TlsFront;
const seen: Seen[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tls-front-test-'));
  ca = await loadLocalCertificateAuthority(join(dir, 'tls'));
  target = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(201, { 'content-type': 'application/json', 'x-target': 'yes' }).end('{"answered":"by the target"}');
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  front = await serveTlsFront({ ca, port: 0, hosts: ['127.0.0.1'], target: { host: '127.0.0.1', port: (target.address() as AddressInfo).port } });
});

afterAll(async () => {
  await front?.close();
  await new Promise<void>((resolve) => target?.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** An HTTPS request to the front for `host`, trusting only the local CA (Node verifies the chain and the name). */
function requestFront(host: string, body?: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port: front.port, servername: host, headers: { host: `${host}:${front.port}`, 'content-type': 'application/json' }, method: body ? 'POST' : 'GET', path: '/v2/session-config?x=1', ca: ca.certificatePem, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('TLS front', () => {
  it('serves a certificate for a project host name that the local CA verifies, and relays the request and the answer unchanged', async () => {
    const rsp = await requestFront('pro-1234567890.localhost', '{"a":1}');
    expect(rsp).toMatchObject({ status: 201, body: '{"answered":"by the target"}', headers: { 'x-target': 'yes' } });
    expect(seen.at(-1)).toEqual({ method: 'POST', url: '/v2/session-config?x=1', host: `pro-1234567890.localhost:${front.port}`, body: '{"a":1}' });
  });

  it('issues a certificate for each name (another project gets its own)', async () => {
    const rsp = await requestFront('pro-other.localhost');
    expect(rsp.status).toBe(201);
    const cert = await new Promise<string>((resolve, reject) => {
      const socket = connectTls({ host: '127.0.0.1', port: front.port, servername: 'pro-other.localhost', ca: ca.certificatePem }, () => {
        resolve(socket.getPeerX509Certificate()?.subjectAltName ?? '');
        socket.destroy();
      });
      socket.on('error', reject);
    });
    expect(cert).toBe('DNS:pro-other.localhost');
  });

  it('refuses the handshake for a name outside localhost', async () => {
    await expect(requestFront('example.com')).rejects.toThrow();
  });

  it('keeps the CA between starts, with its key readable by the owner only', async () => {
    const again = await loadLocalCertificateAuthority(join(dir, 'tls'));
    expect(again.created).toBe(false);
    expect(ca.created).toBe(true);
    expect(again.certificatePem).toBe(ca.certificatePem);
    expect(statSync(join(dir, 'tls', 'ca-key.pem')).mode & 0o777).toBe(0o600);
  });

  it('serves clients that name no host (an IP address in the URL) a certificate for the loopback addresses', async () => {
    const subjectAltName = await new Promise<string>((resolve, reject) => {
      // No servername: Node sends no SNI for an IP address and checks the certificate against it.
      const socket = connectTls({ host: '127.0.0.1', port: front.port, ca: ca.certificatePem }, () => {
        resolve(socket.getPeerX509Certificate()?.subjectAltName ?? '');
        socket.destroy();
      });
      socket.on('error', reject);
    });
    expect(subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
  });

  it('issues certificates only for localhost names and loopback addresses', async () => {
    for (const names of [['bank.example.com'], ['localhost', '10.9.8.7'], ['localhost', '::ffff:127.0.0.1'], ['127.0.0.1']] as [string, ...string[]][]) {
      await expect(issueHostCertificate(ca, ...names), names.join(' ')).rejects.toThrow();
    }
  });

  it("is name-constrained: a certificate signed with its key for a name outside localhost does not verify", async () => {
    // Signed directly (issueHostCertificate refuses such names), to show that trusting the CA
    // trusts it for localhost names only.
    const evil = await forgeCertificate(ca, { names: [{ type: 'dns', value: 'bank.example.com' }], subject: 'CN=bank.example.com' });
    // OpenSSL's X509_V_ERR_PERMITTED_VIOLATION: the chain breaks the CA's name constraints
    // (and not, say, a name mismatch: the leaf's name is the one asked for).
    expect(await nodeHandshake(ca.certificatePem, evil, 'bank.example.com')).toBe('permitted subtree violation');
  });

  it('accepts localhost and names below it, nothing else', () => {
    for (const name of ['localhost', 'pro-123.localhost', 'a.b.localhost']) expect(isLocalhostName(name)).toBe(true);
    for (const name of ['localhost.example.com', 'example.com', 'pro_1.localhost', '-a.localhost', 'xlocalhost', '', '.localhost']) expect(isLocalhostName(name)).toBe(false);
  });

  it('takes loopback addresses for loopback, per family', () => {
    for (const address of ['127.0.0.1', '127.255.0.9', '::1', '0:0:0:0:0:0:0:1']) expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ['10.9.8.7', '128.0.0.1', '::2', '::ffff:127.0.0.1', 'localhost', '']) expect(isLoopbackAddress(address), address).toBe(false);
  });
});
