/** A server certificate for `localhost` names or loopback addresses, signed by the local CA (loadLocalCertificateAuthority.ts). */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { isIP } from 'node:net';
import { isLocalhostName } from './isLocalhostName.js';
import { isLoopbackAddress } from './isLoopbackAddress.js';
import { LEAF_LIFETIME_MS, randomSerialNumber, SIGNING_ALGORITHM } from './localCaProfile.js';
import type { LocalCertificateAuthority } from './loadLocalCertificateAuthority.js';

export interface HostCertificate {
  /** The leaf, then the CA: clients that were given the CA file still get the whole chain. */
  certificateChainPem: string;
  privateKeyPem: string;
}

/**
 * `names`: `localhost` names (isLocalhostName) and loopback IP addresses, the first one a DNS
 * name. Anything else is refused here, before the CA's name constraints would make every client
 * refuse it.
 */
export async function issueHostCertificate(ca: LocalCertificateAuthority, ...names: [string, ...string[]]): Promise<HostCertificate> {
  for (const name of names) {
    if (isIP(name) ? !isLoopbackAddress(name) : !isLocalhostName(name)) throw new Error(`the local CA certifies only localhost names and loopback addresses, not "${name}"`);
  }
  if (isIP(names[0])) throw new Error('the first name of a host certificate must be a DNS name (its subject)');
  const keys = await crypto.subtle.generateKey(SIGNING_ALGORITHM, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 60_000);
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: `CN=${names[0]}`,
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
      new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: isIP(value) ? ('ip' as const) : ('dns' as const), value }))),
      await x509.AuthorityKeyIdentifierExtension.create(ca.certificate),
    ],
  });
  const privateKeyPem = x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  return { certificateChainPem: `${leaf.toString('pem')}\n${ca.certificatePem.trim()}\n`, privateKeyPem };
}
