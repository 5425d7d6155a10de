/**
 * What the local CA of `npm start` is allowed to vouch for, written into its own certificate so
 * that every verifier that trusts it applies the limits, whoever holds its key:
 *
 * - names (nameConstraints, RFC 5280 §4.2.1.10, critical): DNS names `localhost` and below it,
 *   IP addresses on the loopback interface (127.0.0.0/8, ::1/128), and for e-mail addresses and
 *   URIs only the reserved name `invalid` (RFC 6761 §6.4: no real host has it). A permitted
 *   subtree is used for those two rather than an excluded one because RFC 5280 has no way to
 *   exclude every e-mail address or URI (an empty excluded rfc822Name matches nothing in OpenSSL),
 *   while "a name of this form must fall into a permitted subtree of its form" is enforced alike
 *   by OpenSSL (Node) and Chromium. Chromium does not check URI constraints, but a critical one
 *   makes it refuse every certificate that carries a URI, which is the intent here too.
 * - purposes (extKeyUsage on the CA): serverAuth only. Verifiers that check the purpose of every
 *   certificate in a chain (OpenSSL and hence Node, Chromium for locally trusted roots) then refuse
 *   it for client authentication, e-mail protection (S/MIME), code signing or time stamping,
 *   whatever its leaves say.
 * - depth (basicConstraints pathlen 0): it signs leaves, never another CA.
 * - keyUsage: keyCertSign and cRLSign only.
 * - a life of a year; leaves live 30 days within it.
 *
 * loadLocalCertificateAuthority.ts replaces a stored CA that lacks any of this (findCaDefects.ts).
 */
import 'reflect-metadata';
import { AsnConvert } from '@peculiar/asn1-schema';
import { GeneralName, GeneralSubtree, GeneralSubtrees, id_ce_nameConstraints, NameConstraints } from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';

export const SIGNING_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

const DAY_MS = 24 * 3600 * 1000;

/**
 * A year: long enough that trusting it is not a weekly chore, short enough that a copy of the
 * key that went somewhere (a backup, a shared disk) stops mattering on its own.
 */
export const CA_LIFETIME_MS = 365 * DAY_MS;

/**
 * 30 days: browsers refuse leaf certificates valid for more than 398 days, and the front issues
 * new ones at every start anyway.
 */
export const LEAF_LIFETIME_MS = 30 * DAY_MS;

/**
 * A CA with less than this left is replaced at start: its leaves would otherwise be cut short
 * and it would expire in the middle of someone's work.
 */
export const RENEW_BEFORE_MS = LEAF_LIFETIME_MS;

/** The IP address ranges the CA may certify: the loopback interface, nothing else. */
export const PERMITTED_IP_RANGES = ['127.0.0.0/8', '::1/128'] as const;

/** The only "host" e-mail addresses and URIs may name: reserved, so no real one matches. */
const NO_REAL_HOST = 'invalid';

/** The CA's extensions (the subject key identifier comes from its public key). */
export async function caExtensions(publicKey: CryptoKey): Promise<x509.Extension[]> {
  return [
    new x509.BasicConstraintsExtension(true, 0, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
    await x509.SubjectKeyIdentifierExtension.create(publicKey),
    localhostOnly(),
  ];
}

/**
 * The nameConstraints extension. @peculiar/x509 has no class for it, so it is encoded with the
 * ASN.1 schema the library itself is built on (which also encodes an address/prefix as the
 * address-and-mask octets RFC 5280 asks for).
 */
function localhostOnly(): x509.Extension {
  const subtree = (name: ConstructorParameters<typeof GeneralName>[0]) => new GeneralSubtree({ base: new GeneralName(name) });
  const value = new NameConstraints({
    permittedSubtrees: new GeneralSubtrees([
      subtree({ dNSName: 'localhost' }),
      ...PERMITTED_IP_RANGES.map((range) => subtree({ iPAddress: range })),
      subtree({ rfc822Name: NO_REAL_HOST }),
      subtree({ uniformResourceIdentifier: NO_REAL_HOST }),
    ]),
  });
  return new x509.Extension(id_ce_nameConstraints, true, AsnConvert.serialize(value));
}

/** A positive 16-byte serial number (RFC 5280 asks for up to 20 bytes, unique per CA). */
export function randomSerialNumber(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] &= 0x7f;
  return Buffer.from(bytes).toString('hex');
}
