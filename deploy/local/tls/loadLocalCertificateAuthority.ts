/**
 * The local certificate authority of `npm start`'s TLS front: created once per checkout in
 * .local/tls/ (git-ignored) and reused, so a browser or OS that was told to trust it keeps
 * trusting the front across restarts.
 *
 * The CA is name-constrained to `localhost` and its subdomains: the published web SDKs build
 * their frontend API URL as https://{projectID}.{suffix}, so the front needs a certificate for
 * every `*.localhost` name, but a developer who trusts this CA must not thereby trust it for any
 * other site, should its key ever leak. Chromium, Firefox and Node enforce name constraints on
 * locally added roots too.
 */
import 'reflect-metadata';
import { AsnConvert } from '@peculiar/asn1-schema';
import { GeneralName, GeneralSubtree, GeneralSubtrees, id_ce_nameConstraints, NameConstraints } from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const SIGNING_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** Ten years: trusting a new CA every year would be a chore nobody does twice. */
const CA_LIFETIME_MS = 10 * 365 * 24 * 3600 * 1000;

export interface LocalCertificateAuthority {
  certificate: x509.X509Certificate;
  privateKey: CryptoKey;
  /** The CA certificate as PEM: the file to trust. */
  certificatePem: string;
  /** Where that file is. */
  certificateFile: string;
  /** Whether this call made it (a browser has not been told to trust it yet). */
  created: boolean;
}

export async function loadLocalCertificateAuthority(dir: string): Promise<LocalCertificateAuthority> {
  const certificateFile = join(dir, 'ca.pem');
  const keyFile = join(dir, 'ca-key.pem');
  if (existsSync(certificateFile) && existsSync(keyFile)) {
    const certificatePem = readFileSync(certificateFile, 'utf8');
    const certificate = new x509.X509Certificate(certificatePem);
    // An expired CA is replaced rather than used: every leaf it signed would be refused anyway.
    if (certificate.notAfter.getTime() > Date.now() + 24 * 3600 * 1000) {
      const privateKey = await crypto.subtle.importKey('pkcs8', pemBody(readFileSync(keyFile, 'utf8')), SIGNING_ALGORITHM, false, ['sign']);
      return { certificate, privateKey, certificatePem, certificateFile, created: false };
    }
  }
  const keys = await crypto.subtle.generateKey(SIGNING_ALGORITHM, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 60_000);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerialNumber(),
    // The host name and date tell apart the CAs of several machines in one trust store.
    name: `CN=passkeyauth local development CA (${hostname()} ${notBefore.toISOString().slice(0, 10)}), O=passkeyauth local development`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + CA_LIFETIME_MS),
    keys,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      localhostOnly(),
    ],
  });
  const certificatePem = certificate.toString('pem');
  const keyPem = x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The key first, each file renamed into place: a start that is interrupted never leaves a
  // certificate whose key is missing.
  writeAtomically(keyFile, keyPem, 0o600);
  writeAtomically(certificateFile, certificatePem, 0o644);
  return { certificate, privateKey: keys.privateKey, certificatePem, certificateFile, created: true };
}

/**
 * The nameConstraints extension (RFC 5280 §4.2.1.10) permitting only DNS names `localhost` and
 * below it. @peculiar/x509 has no class for it, so it is encoded with the ASN.1 schema the
 * library itself is built on.
 */
function localhostOnly(): x509.Extension {
  const value = new NameConstraints({
    permittedSubtrees: new GeneralSubtrees([new GeneralSubtree({ base: new GeneralName({ dNSName: 'localhost' }) })]),
  });
  return new x509.Extension(id_ce_nameConstraints, true, AsnConvert.serialize(value));
}

/** A positive 16-byte serial number (RFC 5280 asks for up to 20 bytes, unique per CA). */
export function randomSerialNumber(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] &= 0x7f;
  return Buffer.from(bytes).toString('hex');
}

function pemBody(pem: string): ArrayBuffer {
  return x509.PemConverter.decodeFirst(pem);
}

function writeAtomically(path: string, contents: string, mode: number): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, contents, { mode });
  renameSync(temp, path);
}
