/** A server certificate for one `localhost` name, signed by the local CA (loadLocalCertificateAuthority.ts). */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { randomSerialNumber, SIGNING_ALGORITHM, type LocalCertificateAuthority } from './loadLocalCertificateAuthority.js';

/**
 * 30 days: browsers refuse leaf certificates valid for more than 398 days, and the front issues
 * new ones at every start anyway.
 */
const LEAF_LIFETIME_MS = 30 * 24 * 3600 * 1000;

export interface HostCertificate {
  /** The leaf, then the CA: clients that were given the CA file still get the whole chain. */
  certificateChainPem: string;
  privateKeyPem: string;
}

export async function issueHostCertificate(ca: LocalCertificateAuthority, host: string): Promise<HostCertificate> {
  const keys = await crypto.subtle.generateKey(SIGNING_ALGORITHM, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 60_000);
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: `CN=${host}`,
    issuer: ca.certificate.subject,
    notBefore,
    notAfter: new Date(Math.min(notBefore.getTime() + LEAF_LIFETIME_MS, ca.certificate.notAfter.getTime())),
    publicKey: keys.publicKey,
    signingKey: ca.privateKey,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      // Browsers match the name only against the subject alternative names.
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: host }]),
      await x509.AuthorityKeyIdentifierExtension.create(ca.certificate),
    ],
  });
  const privateKeyPem = x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  return { certificateChainPem: `${leaf.toString('pem')}\n${ca.certificatePem.trim()}\n`, privateKeyPem };
}
