/**
 * What whoever holds the local CA's key can make: any certificate at all, signed with that key.
 * The tests use it to show what clients that trust the CA then accept (and refuse), whatever
 * issueHostCertificate would have refused to make.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls, createServer as createTlsServer } from 'node:tls';
import { randomSerialNumber, SIGNING_ALGORITHM } from '../tls/localCaProfile.js';
import type { LocalCertificateAuthority } from '../tls/loadLocalCertificateAuthority.js';

export interface ForgeOptions {
  /** Subject alternative names. */
  names: { type: 'dns' | 'ip' | 'email' | 'url'; value: string }[];
  /** Extended key usages (default: serverAuth). */
  extKeyUsages?: string[];
  /** Default: no common name, so that verifiers judge the alternative names alone. */
  subject?: string;
}

export interface ForgedCertificate {
  /** The leaf, then the CA. */
  certificateChainPem: string;
  leafPem: string;
  privateKeyPem: string;
}

export async function forgeCertificate(ca: LocalCertificateAuthority, opts: ForgeOptions): Promise<ForgedCertificate> {
  const keys = await crypto.subtle.generateKey(SIGNING_ALGORITHM, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 60_000);
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: opts.subject ?? 'O=forged',
    issuer: ca.certificate.subject,
    notBefore,
    notAfter: new Date(notBefore.getTime() + 24 * 3600 * 1000),
    publicKey: keys.publicKey,
    signingKey: ca.privateKey,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension(opts.extKeyUsages ?? [x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(opts.names),
      await x509.AuthorityKeyIdentifierExtension.create(ca.certificate),
    ],
  });
  const leafPem = leaf.toString('pem');
  const privateKeyPem = x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  return { certificateChainPem: `${leafPem}\n${ca.certificatePem.trim()}\n`, leafPem, privateKeyPem };
}

/**
 * `openssl verify` of `leafPem` against the CA alone, for an OpenSSL purpose (sslserver,
 * sslclient, smimesign, …): "OK", or OpenSSL's reason for refusing it.
 */
export function opensslVerify(caPem: string, leafPem: string, purpose: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'openssl-verify-'));
  try {
    writeFileSync(join(dir, 'ca.pem'), caPem);
    writeFileSync(join(dir, 'leaf.pem'), leafPem);
    try {
      const out = execFileSync('openssl', ['verify', '-x509_strict', '-CAfile', join(dir, 'ca.pem'), '-purpose', purpose, join(dir, 'leaf.pem')], { stdio: 'pipe', encoding: 'utf8' });
      return out.trim().endsWith(': OK') ? 'OK' : out.trim();
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      // "error 47 at 0 depth lookup: permitted subtree violation"
      const reason = /error \d+ at \d+ depth lookup: ([^\n]+)/.exec(`${e.stdout ?? ''}${e.stderr ?? ''}`);
      return reason ? reason[1] : `${e.stdout ?? ''}${e.stderr ?? ''}`.trim();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A real TLS handshake on loopback: a server presenting `served`, a Node client trusting only the
 * CA and asking for `host` (a name or an IP address; the connection goes to 127.0.0.1 either way,
 * as if `host` resolved there). "verified", or the client's reason for refusing.
 */
export async function nodeHandshake(caPem: string, served: { certificateChainPem: string; privateKeyPem: string }, host: string): Promise<string> {
  const server = createTlsServer({ cert: served.certificateChainPem, key: served.privateKeyPem }, (s) => s.end());
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const tcp = connectTcp({ host: '127.0.0.1', port: (server.address() as AddressInfo).port });
    await new Promise<void>((resolve, reject) => tcp.once('connect', resolve).once('error', reject));
    return await new Promise<string>((resolve) => {
      // `host` without `servername`: Node checks the certificate against `host`, and sends it as
      // SNI only when it is a DNS name, as for a URL naming that host.
      const socket = connectTls({ socket: tcp, host, ...(/^[\d.]+$|:/.test(host) ? {} : { servername: host }), ca: caPem }, () => {
        resolve('verified');
        socket.destroy();
      });
      socket.on('error', (err) => {
        resolve(err.message);
        socket.destroy();
      });
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
