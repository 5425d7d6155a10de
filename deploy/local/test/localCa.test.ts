/**
 * The local CA of `npm start` (deploy/local/tls/localCaProfile.ts): what a certificate signed with
 * its key is good for, checked by the verifiers that trust it (`openssl verify`, Node's TLS
 * client), a life of a year, the replacement of a stored CA that is expired, near expiry or made
 * before the current limits, and the refusal of a key file others could read.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { AsnConvert } from '@peculiar/asn1-schema';
import { GeneralName, GeneralSubtree, GeneralSubtrees, id_ce_nameConstraints, NameConstraints } from '@peculiar/asn1-x509';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCaKeyFile } from '../tls/checkCaKeyFile.js';
import { issueHostCertificate } from '../tls/issueHostCertificate.js';
import { loadLocalCertificateAuthority, type LocalCertificateAuthority } from '../tls/loadLocalCertificateAuthority.js';
import { caExtensions, randomSerialNumber, SIGNING_ALGORITHM } from '../tls/localCaProfile.js';
import { forgeCertificate, nodeHandshake, opensslVerify, type ForgeOptions } from './forgeCertificate.js';

const DAY_MS = 24 * 3600 * 1000;
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const EMAIL_PROTECTION = '1.3.6.1.5.5.7.3.4';

let root: string;
let ca: LocalCertificateAuthority;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'local-ca-test-'));
  ca = await loadLocalCertificateAuthority(join(root, 'tls'));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a certificate signed with the local CA key', () => {
  const cases: [string, ForgeOptions, purpose: string, expected: string][] = [
    ['a TLS server at localhost', { names: [{ type: 'dns', value: 'localhost' }] }, 'sslserver', 'OK'],
    ['a TLS server at pro-1.localhost', { names: [{ type: 'dns', value: 'pro-1.localhost' }] }, 'sslserver', 'OK'],
    ['a TLS server at 127.0.0.1', { names: [{ type: 'ip', value: '127.0.0.1' }] }, 'sslserver', 'OK'],
    ['a TLS server at ::1', { names: [{ type: 'ip', value: '::1' }] }, 'sslserver', 'OK'],
    ['a TLS server at 10.9.8.7', { names: [{ type: 'ip', value: '10.9.8.7' }] }, 'sslserver', 'permitted subtree violation'],
    ['a TLS server at ::ffff:127.0.0.1', { names: [{ type: 'ip', value: '::ffff:127.0.0.1' }] }, 'sslserver', 'permitted subtree violation'],
    ['a TLS server at example.com', { names: [{ type: 'dns', value: 'example.com' }] }, 'sslserver', 'permitted subtree violation'],
    ['a TLS server at localhost that also names an e-mail address', { names: [{ type: 'dns', value: 'localhost' }, { type: 'email', value: 'victim@bank.example' }] }, 'sslserver', 'permitted subtree violation'],
    ['a TLS server at localhost that also names a URI', { names: [{ type: 'dns', value: 'localhost' }, { type: 'url', value: 'spiffe://bank.example/payments' }] }, 'sslserver', 'permitted subtree violation'],
    // The CA's own extended key usage (serverAuth) refuses these, whatever the name:
    ['an S/MIME signer', { names: [{ type: 'email', value: 'victim@bank.example' }], extKeyUsages: [EMAIL_PROTECTION] }, 'smimesign', 'unsuitable certificate purpose'],
    ['an S/MIME signer at a name the constraints let through', { names: [{ type: 'email', value: 'dev@invalid' }], extKeyUsages: [EMAIL_PROTECTION] }, 'smimesign', 'unsuitable certificate purpose'],
    ['a TLS client named localhost', { names: [{ type: 'dns', value: 'localhost' }], extKeyUsages: [CLIENT_AUTH] }, 'sslclient', 'unsuitable certificate purpose'],
    ['a TLS client and server named localhost, used as a client', { names: [{ type: 'dns', value: 'localhost' }], extKeyUsages: [SERVER_AUTH, CLIENT_AUTH] }, 'sslclient', 'unsuitable certificate purpose'],
  ];
  for (const [what, opts, purpose, expected] of cases) {
    it(`as ${what}: openssl verify -purpose ${purpose} says ${expected}`, async () => {
      const leaf = await forgeCertificate(ca, opts);
      expect(opensslVerify(ca.certificatePem, leaf.leafPem, purpose)).toBe(expected);
    });
  }

  it('for 10.9.8.7 is refused by a Node TLS client that trusts the CA, one for 127.0.0.1 is accepted', async () => {
    const evil = await forgeCertificate(ca, { names: [{ type: 'ip', value: '10.9.8.7' }] });
    expect(await nodeHandshake(ca.certificatePem, evil, '10.9.8.7')).toBe('permitted subtree violation');
    const loopback = await forgeCertificate(ca, { names: [{ type: 'ip', value: '127.0.0.1' }] });
    expect(await nodeHandshake(ca.certificatePem, loopback, '127.0.0.1')).toBe('verified');
  });
});

describe('the local CA', () => {
  it('is a CA for TLS servers only, one level deep, for about a year', () => {
    const c = ca.certificate;
    const basic = c.getExtension(x509.BasicConstraintsExtension);
    expect({ ca: basic?.ca, pathLength: basic?.pathLength, critical: basic?.critical }).toEqual({ ca: true, pathLength: 0, critical: true });
    expect(c.getExtension(x509.KeyUsagesExtension)?.usages).toBe(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign);
    expect(c.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual([SERVER_AUTH]);
    const constraints = AsnConvert.parse(c.getExtension(id_ce_nameConstraints)!.value, NameConstraints);
    expect(c.getExtension(id_ce_nameConstraints)?.critical).toBe(true);
    expect(constraints.excludedSubtrees).toBeUndefined();
    expect(constraints.permittedSubtrees?.map((s) => Object.entries(s.base).filter(([, v]) => v !== undefined))).toEqual([
      [['dNSName', 'localhost']],
      [['iPAddress', '127.0.0.0/8']],
      [['iPAddress', '::1/128']],
      [['rfc822Name', 'invalid']],
      [['uniformResourceIdentifier', 'invalid']],
    ]);
    const lifeDays = (c.notAfter.getTime() - c.notBefore.getTime()) / DAY_MS;
    expect(lifeDays).toBeGreaterThanOrEqual(364);
    expect(lifeDays).toBeLessThanOrEqual(366);
  });

  it("issues host certificates that a Node TLS client trusting only the CA accepts in a real handshake, each within the CA's life", async () => {
    const host = await issueHostCertificate(ca, 'localhost');
    expect(await nodeHandshake(ca.certificatePem, host, 'localhost')).toBe('verified');
    const leaf = new x509.X509Certificate(host.certificateChainPem.split(/(?<=-----END CERTIFICATE-----)/)[0]);
    expect(leaf.notAfter.getTime()).toBeLessThanOrEqual(ca.certificate.notAfter.getTime());
    expect((leaf.notAfter.getTime() - leaf.notBefore.getTime()) / DAY_MS).toBeCloseTo(30, 0);
    expect(opensslVerify(ca.certificatePem, leaf.toString('pem'), 'sslserver')).toBe('OK');
  });

  it('keeps its key readable by the owner only', () => {
    expect(statSync(join(root, 'tls', 'ca-key.pem')).mode & 0o777).toBe(0o600);
  });
});

/** Writes a CA into `dir` the way an earlier version (or another clock) would have left it. */
async function writeStoredCa(dir: string, opts: { notBefore: Date; notAfter: Date; extensions?: (publicKey: CryptoKey) => Promise<x509.Extension[]> }): Promise<string> {
  const keys = await crypto.subtle.generateKey(SIGNING_ALGORITHM, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerialNumber(),
    name: 'CN=passkeyauth local development CA (test)',
    notBefore: opts.notBefore,
    notAfter: opts.notAfter,
    keys,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: await (opts.extensions ?? caExtensions)(keys.publicKey),
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'ca-key.pem'), x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY'), { mode: 0o600 });
  writeFileSync(join(dir, 'ca.pem'), certificate.toString('pem'));
  return certificate.toString('pem');
}

/** The extensions of the CA before this profile: DNS-only name constraints, no extended key usage. */
async function tenYearOldProfile(publicKey: CryptoKey): Promise<x509.Extension[]> {
  const dnsOnly = new NameConstraints({ permittedSubtrees: new GeneralSubtrees([new GeneralSubtree({ base: new GeneralName({ dNSName: 'localhost' }) })]) });
  return [
    new x509.BasicConstraintsExtension(true, 0, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    await x509.SubjectKeyIdentifierExtension.create(publicKey),
    new x509.Extension(id_ce_nameConstraints, true, AsnConvert.serialize(dnsOnly)),
  ];
}

describe('a stored local CA', () => {
  let n = 0;
  const dir = () => join(root, `stored-${++n}`);
  const now = Date.now();

  it('is replaced when it predates the current limits (a ten-year CA constrained for DNS names only), saying why', async () => {
    const d = dir();
    const old = await writeStoredCa(d, { notBefore: new Date(now - DAY_MS), notAfter: new Date(now + 3650 * DAY_MS), extensions: tenYearOldProfile });
    const loaded = await loadLocalCertificateAuthority(d);
    expect(loaded.created).toBe(true);
    expect(loaded.certificatePem).not.toBe(old);
    expect(readFileSync(join(d, 'ca.pem'), 'utf8')).toBe(loaded.certificatePem);
    expect(loaded.replacedBecause).toContain('longer than a year');
    expect(loaded.replacedBecause).toContain('lacks the extended key usage extension');
    expect(loaded.replacedBecause).toContain('its name constraints extension is not the current one');
    // The new one is the current profile: loading again keeps it.
    expect((await loadLocalCertificateAuthority(d)).created).toBe(false);
  });

  it('is replaced when it has expired', async () => {
    const d = dir();
    await writeStoredCa(d, { notBefore: new Date(now - 400 * DAY_MS), notAfter: new Date(now - 35 * DAY_MS) });
    expect((await loadLocalCertificateAuthority(d)).replacedBecause).toMatch(/^it expired on \d{4}-\d\d-\d\d$/);
  });

  it('is replaced when it expires within the life of a host certificate', async () => {
    const d = dir();
    await writeStoredCa(d, { notBefore: new Date(now - 340 * DAY_MS), notAfter: new Date(now + 20 * DAY_MS) });
    expect((await loadLocalCertificateAuthority(d)).replacedBecause).toMatch(/^it expires on \d{4}-\d\d-\d\d$/);
  });

  it('is kept while it has more than that left', async () => {
    const d = dir();
    const stored = await writeStoredCa(d, { notBefore: new Date(now - 300 * DAY_MS), notAfter: new Date(now + 65 * DAY_MS) });
    const loaded = await loadLocalCertificateAuthority(d);
    expect({ created: loaded.created, replacedBecause: loaded.replacedBecause, same: loaded.certificatePem === stored }).toEqual({ created: false, replacedBecause: undefined, same: true });
  });

  it('is replaced when its key file holds another key, or its certificate is missing', async () => {
    const d = dir();
    await writeStoredCa(d, { notBefore: new Date(now - DAY_MS), notAfter: new Date(now + 360 * DAY_MS) });
    const other = dir();
    await writeStoredCa(other, { notBefore: new Date(now - DAY_MS), notAfter: new Date(now + 360 * DAY_MS) });
    writeFileSync(join(d, 'ca-key.pem'), readFileSync(join(other, 'ca-key.pem')), { mode: 0o600 });
    expect((await loadLocalCertificateAuthority(d)).replacedBecause).toBe('its key file holds another key');
    rmSync(join(other, 'ca.pem'));
    expect((await loadLocalCertificateAuthority(other)).replacedBecause).toBe('its certificate file is missing');
  });

  it('is replaced when it is not an ECDSA P-256 CA (an RSA one made by hand)', async () => {
    const d = dir();
    mkdirSync(d);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '300', '-subj', '/CN=hand-made', '-keyout', join(d, 'ca-key.pem'), '-out', join(d, 'ca.pem')], { stdio: 'pipe' });
    chmodSync(join(d, 'ca-key.pem'), 0o600);
    const loaded = await loadLocalCertificateAuthority(d);
    expect(loaded.replacedBecause).toMatch(/^it is not an ECDSA P-256 CA this front can use \(/);
    expect(loaded.certificate.publicKey.algorithm.name).toBe('ECDSA');
  });

  it('is refused, and left as it is, when its key file may be read by others', async () => {
    const d = dir();
    const stored = await writeStoredCa(d, { notBefore: new Date(now - DAY_MS), notAfter: new Date(now + 360 * DAY_MS) });
    chmodSync(join(d, 'ca-key.pem'), 0o644);
    await expect(loadLocalCertificateAuthority(d)).rejects.toThrow(/ca-key\.pem has mode 0644: others on this machine could read or change it.*chmod 600/);
    expect(readFileSync(join(d, 'ca.pem'), 'utf8')).toBe(stored);
    chmodSync(join(d, 'ca-key.pem'), 0o640);
    await expect(loadLocalCertificateAuthority(d)).rejects.toThrow(/mode 0640/);
    chmodSync(join(d, 'ca-key.pem'), 0o400);
    expect((await loadLocalCertificateAuthority(d)).created).toBe(false);
  });

  it('is refused when its key file belongs to another user or is a link', async () => {
    const d = dir();
    await writeStoredCa(d, { notBefore: new Date(now - DAY_MS), notAfter: new Date(now + 360 * DAY_MS) });
    const keyFile = join(d, 'ca-key.pem');
    const owner = statSync(keyFile).uid;
    expect(() => checkCaKeyFile(keyFile, owner + 1)).toThrow(`belongs to user ${owner}, not to you (user ${owner + 1})`);
    expect(() => checkCaKeyFile(keyFile, owner)).not.toThrow();
    const linked = dir();
    mkdirSync(linked);
    symlinkSync(keyFile, join(linked, 'ca-key.pem'));
    writeFileSync(join(linked, 'ca.pem'), readFileSync(join(d, 'ca.pem')));
    await expect(loadLocalCertificateAuthority(linked)).rejects.toThrow('is not a regular file');
  });
});
