/**
 * Attack (issue #29): someone who got hold of the local CA's key (`.local/tls/ca-key.pem`) signs,
 * with plain openssl, certificates for what a trusted CA would let them impersonate: a server at
 * https://10.9.8.7 (an intranet address), an e-mail address (S/MIME), a TLS client. Verifiers that
 * trust the CA as docs/web-sdks.md says (`openssl verify`, Node's TLS with `ca:`) must refuse each.
 *
 * A CA made as before the fix (name constraints for DNS names only, no extended key usage) is
 * attacked the same way as a control: there the attack works, so these tests can tell.
 *
 * It lives here rather than in test/attacks because it starts no stack, only TLS servers on
 * loopback ports the system picks (test/attacks/README.md points here).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls, createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueHostCertificate } from '../tls/issueHostCertificate.js';
import { loadLocalCertificateAuthority, type LocalCertificateAuthority } from '../tls/loadLocalCertificateAuthority.js';
import { nodeHandshake, opensslVerify } from './forgeCertificate.js';

let dir: string;
let ca: LocalCertificateAuthority;
/** The stolen files: the CA certificate and its key. */
let stolen: { caFile: string; keyFile: string };
/** A CA as the front made it before this fix, and its key. */
let before: { caFile: string; keyFile: string; caPem: string };

const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe', encoding: 'utf8' });

/** The attacker's step: a new key and a certificate with `extensions` (openssl x509v3 config lines), signed with the stolen key. */
function signWithStolenKey(issuer: { caFile: string; keyFile: string }, name: string, extensions: string[]): { leafPem: string; certificateChainPem: string; privateKeyPem: string } {
  const base = join(dir, name);
  writeFileSync(`${base}.ext`, `${extensions.join('\n')}\n`);
  openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${base}.key`, '-subj', '/O=attacker', '-out', `${base}.csr`);
  openssl('x509', '-req', '-in', `${base}.csr`, '-CA', issuer.caFile, '-CAkey', issuer.keyFile, '-set_serial', '0x1d5e', '-days', '30', '-extfile', `${base}.ext`, '-out', `${base}.pem`);
  const leafPem = readFileSync(`${base}.pem`, 'utf8');
  return { leafPem, certificateChainPem: `${leafPem}${readFileSync(issuer.caFile, 'utf8')}`, privateKeyPem: readFileSync(`${base}.key`, 'utf8') };
}

const SERVER_AT_10_9_8_7 = ['basicConstraints=critical,CA:false', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=serverAuth', 'subjectAltName=IP:10.9.8.7'];
const SMIME_FOR_VICTIM = ['basicConstraints=critical,CA:false', 'keyUsage=critical,digitalSignature,keyEncipherment', 'extendedKeyUsage=emailProtection', 'subjectAltName=email:victim@bank.example'];
const SERVER_NAMING_VICTIM = ['basicConstraints=critical,CA:false', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=serverAuth', 'subjectAltName=DNS:localhost,email:victim@bank.example'];
const CLIENT_AS_LOCALHOST = ['basicConstraints=critical,CA:false', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=clientAuth', 'subjectAltName=DNS:localhost'];

/**
 * A Node TLS server that asks for client certificates from the CA (as a service that trusted the
 * CA for client authentication would), and a client presenting `client`: the server's verdict.
 */
async function clientAuthVerdict(caPem: string, client: { certificateChainPem: string; privateKeyPem: string }): Promise<string> {
  const host = await issueHostCertificate(ca, 'localhost');
  let verdict: (v: string) => void = () => undefined;
  const seen = new Promise<string>((resolve) => (verdict = resolve));
  const server = createTlsServer({ cert: host.certificateChainPem, key: host.privateKeyPem, ca: caPem, requestCert: true, rejectUnauthorized: false }, (socket: TLSSocket) => {
    verdict(socket.authorized ? 'authorized' : String(socket.authorizationError));
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const socket = connectTls({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, servername: 'localhost', ca: ca.certificatePem, cert: client.certificateChainPem, key: client.privateKeyPem });
    socket.on('error', () => undefined);
    const result = await seen;
    socket.destroy();
    return result;
  } finally {
    server.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'local-ca-attack-'));
  ca = await loadLocalCertificateAuthority(join(dir, 'tls'));
  stolen = { caFile: join(dir, 'tls', 'ca.pem'), keyFile: join(dir, 'tls', 'ca-key.pem') };
  writeFileSync(
    join(dir, 'before.cnf'),
    [
      '[req]',
      'distinguished_name = dn',
      'prompt = no',
      'x509_extensions = ca',
      '[dn]',
      'CN = passkeyauth local development CA (before the fix)',
      '[ca]',
      'basicConstraints = critical,CA:true,pathlen:0',
      'keyUsage = critical,keyCertSign,cRLSign',
      'subjectKeyIdentifier = hash',
      'nameConstraints = critical,permitted;DNS:localhost',
      '',
    ].join('\n'),
  );
  before = { caFile: join(dir, 'before.pem'), keyFile: join(dir, 'before-key.pem'), caPem: '' };
  openssl('req', '-x509', '-config', join(dir, 'before.cnf'), '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '3650', '-keyout', before.keyFile, '-out', before.caFile);
  before.caPem = readFileSync(before.caFile, 'utf8');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('attack: a stolen local CA key certifies what it was not made for', () => {
  it('a server certificate for https://10.9.8.7 is refused by openssl and by Node', async () => {
    const evil = signWithStolenKey(stolen, 'ip', SERVER_AT_10_9_8_7);
    expect(opensslVerify(ca.certificatePem, evil.leafPem, 'sslserver')).toBe('permitted subtree violation');
    expect(await nodeHandshake(ca.certificatePem, evil, '10.9.8.7')).toBe('permitted subtree violation');
  });

  it('an S/MIME certificate for an e-mail address is refused by openssl, and Node refuses a server certificate naming that address', async () => {
    const smime = signWithStolenKey(stolen, 'smime', SMIME_FOR_VICTIM);
    expect(opensslVerify(ca.certificatePem, smime.leafPem, 'smimesign')).toBe('unsuitable certificate purpose');
    expect(opensslVerify(ca.certificatePem, smime.leafPem, 'smimeencrypt')).toBe('unsuitable certificate purpose');
    const naming = signWithStolenKey(stolen, 'naming', SERVER_NAMING_VICTIM);
    expect(opensslVerify(ca.certificatePem, naming.leafPem, 'sslserver')).toBe('permitted subtree violation');
    expect(await nodeHandshake(ca.certificatePem, naming, 'localhost')).toBe('permitted subtree violation');
  });

  it('a client certificate is refused by openssl and by a Node server that takes client certificates from the CA', async () => {
    const client = signWithStolenKey(stolen, 'client', CLIENT_AS_LOCALHOST);
    expect(opensslVerify(ca.certificatePem, client.leafPem, 'sslclient')).toBe('unsuitable certificate purpose');
    expect(await clientAuthVerdict(ca.certificatePem, client)).toBe('INVALID_PURPOSE');
  });

  it('control: against a CA made as before the fix, the same attack works', async () => {
    const ip = signWithStolenKey(before, 'before-ip', SERVER_AT_10_9_8_7);
    expect(opensslVerify(before.caPem, ip.leafPem, 'sslserver')).toBe('OK');
    expect(await nodeHandshake(before.caPem, ip, '10.9.8.7')).toBe('verified');
    expect(opensslVerify(before.caPem, signWithStolenKey(before, 'before-smime', SMIME_FOR_VICTIM).leafPem, 'smimesign')).toBe('OK');
    const client = signWithStolenKey(before, 'before-client', CLIENT_AS_LOCALHOST);
    expect(opensslVerify(before.caPem, client.leafPem, 'sslclient')).toBe('OK');
    expect(await clientAuthVerdict(before.caPem, client)).toBe('authorized');
  });
});
