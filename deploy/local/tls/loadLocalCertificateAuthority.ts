/**
 * The local certificate authority of `npm start`'s TLS front: created in .local/tls/ (git-ignored)
 * and reused for its year, so a browser or OS that was told to trust it keeps trusting the front
 * across restarts.
 *
 * What it may vouch for is written into its certificate (localCaProfile.ts): TLS servers named
 * `localhost`, `*.localhost` or a loopback address, nothing else. The published web SDKs build
 * their frontend API URL as https://{projectID}.{suffix}, so the front needs a certificate for
 * every `*.localhost` name; a developer who trusts this CA must not thereby trust it for any
 * other site or purpose, should its key ever leak.
 *
 * A stored CA is replaced when findCaDefects.ts finds a reason (expired or near it, made before
 * the current limits, a key that is not its own); the result says why, because everyone who
 * trusted the old one has to trust the new one. A key file others may read, or that belongs to
 * someone else, is refused (checkCaKeyFile.ts).
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { checkCaKeyFile } from './checkCaKeyFile.js';
import { findCaDefects } from './findCaDefects.js';
import { CA_LIFETIME_MS, caExtensions, randomSerialNumber, SIGNING_ALGORITHM } from './localCaProfile.js';

export interface LocalCertificateAuthority {
  certificate: x509.X509Certificate;
  privateKey: CryptoKey;
  /** The CA certificate as PEM: the file to trust. */
  certificatePem: string;
  /** Where that file is. */
  certificateFile: string;
  /** Whether this call made it (a browser has not been told to trust it yet). */
  created: boolean;
  /** Why the CA that was stored before was replaced by the one made now, if there was one. */
  replacedBecause?: string;
}

export async function loadLocalCertificateAuthority(dir: string): Promise<LocalCertificateAuthority> {
  const certificateFile = join(dir, 'ca.pem');
  const keyFile = join(dir, 'ca-key.pem');
  let replacedBecause: string | undefined;
  if (existsSync(keyFile)) checkCaKeyFile(keyFile);
  if (existsSync(certificateFile) && existsSync(keyFile)) {
    const stored = await readStored(certificateFile, keyFile);
    if ('ca' in stored) return stored.ca;
    replacedBecause = stored.defects.join('; ');
  } else if (existsSync(certificateFile) || existsSync(keyFile)) {
    replacedBecause = existsSync(keyFile) ? 'its certificate file is missing' : 'its key file is missing';
  }
  const ca = await createCertificateAuthority(dir, certificateFile, keyFile);
  return replacedBecause === undefined ? ca : { ...ca, replacedBecause };
}

async function readStored(certificateFile: string, keyFile: string): Promise<{ ca: LocalCertificateAuthority } | { defects: string[] }> {
  let certificate: x509.X509Certificate;
  let certificatePem: string;
  try {
    certificatePem = readFileSync(certificateFile, 'utf8');
    certificate = new x509.X509Certificate(certificatePem);
  } catch (err) {
    return { defects: [`its certificate could not be read (${(err as Error).message})`] };
  }
  const keyPem = readFileSync(keyFile, 'utf8');
  // A certificate or key of another kind (say RSA) cannot be checked or used: replaced as well.
  try {
    const defects = await findCaDefects(certificate, keyPem);
    if (defects.length > 0) return { defects };
    const privateKey = await crypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(keyPem), SIGNING_ALGORITHM, false, ['sign']);
    return { ca: { certificate, privateKey, certificatePem, certificateFile, created: false } };
  } catch (err) {
    return { defects: [`it is not an ECDSA P-256 CA this front can use (${(err as Error).message})`] };
  }
}

async function createCertificateAuthority(dir: string, certificateFile: string, keyFile: string): Promise<LocalCertificateAuthority> {
  const keys = await crypto.subtle.generateKey(SIGNING_ALGORITHM, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 60_000);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerialNumber(),
    // The host name and date tell apart the CAs of several machines (and years) in one trust store.
    name: `CN=passkeyauth local development CA (${hostname()} ${notBefore.toISOString().slice(0, 10)}), O=passkeyauth local development`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + CA_LIFETIME_MS),
    keys,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: await caExtensions(keys.publicKey),
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

function writeAtomically(path: string, contents: string, mode: number): void {
  const temp = `${path}.${process.pid}.tmp`;
  // A leftover temporary file would keep its old mode: writeFileSync applies `mode` only to a
  // file it creates, so it is removed and then created exclusively.
  rmSync(temp, { force: true });
  writeFileSync(temp, contents, { mode, flag: 'wx' });
  renameSync(temp, path);
}
