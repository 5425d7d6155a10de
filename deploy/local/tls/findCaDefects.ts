/**
 * Why a stored local CA must not be used any more, or an empty list: expired or close to it, not
 * (or no longer) made the way localCaProfile.ts makes one (say a CA from before its name
 * constraints covered IP addresses, e-mail and URIs, or from when it lasted ten years), or a key
 * that does not belong to the certificate.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { CA_LIFETIME_MS, caExtensions, RENEW_BEFORE_MS } from './localCaProfile.js';

/** Slack for the minute a CA is back-dated and for clocks; anything longer was made to last longer. */
const LIFETIME_SLACK_MS = 24 * 3600 * 1000;

export async function findCaDefects(certificate: x509.X509Certificate, keyPem: string, now = new Date()): Promise<string[]> {
  const defects: string[] = [];
  const day = (d: Date) => d.toISOString().slice(0, 10);
  if (certificate.notAfter.getTime() <= now.getTime()) defects.push(`it expired on ${day(certificate.notAfter)}`);
  else if (certificate.notAfter.getTime() - now.getTime() < RENEW_BEFORE_MS) defects.push(`it expires on ${day(certificate.notAfter)}`);
  if (certificate.notBefore.getTime() > now.getTime() + LIFETIME_SLACK_MS) defects.push(`it is valid only from ${day(certificate.notBefore)}`);
  if (certificate.notAfter.getTime() - certificate.notBefore.getTime() > CA_LIFETIME_MS + LIFETIME_SLACK_MS) {
    defects.push(`it was made to last until ${day(certificate.notAfter)}, longer than a year`);
  }
  defects.push(...(await profileDefects(certificate)));
  if (!keyMatches(certificate, keyPem)) defects.push('its key file holds another key');
  return defects;
}

/** Each extension the profile prescribes must be there byte for byte, and no other. */
async function profileDefects(certificate: x509.X509Certificate): Promise<string[]> {
  const expected = await caExtensions(await certificate.publicKey.export(certificate.publicKey.algorithm, ['verify']));
  const defects: string[] = [];
  for (const want of expected) {
    const have = certificate.getExtension(want.type);
    if (!have) defects.push(`it lacks the ${extensionName(want.type)} extension`);
    else if (have.critical !== want.critical || !Buffer.from(have.value).equals(Buffer.from(want.value))) defects.push(`its ${extensionName(want.type)} extension is not the current one`);
  }
  for (const have of certificate.extensions) {
    if (!expected.some((want) => want.type === have.type)) defects.push(`it has an extension the current profile does not (${extensionName(have.type)})`);
  }
  return defects;
}

function keyMatches(certificate: x509.X509Certificate, keyPem: string): boolean {
  try {
    const spki = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
    return spki.equals(Buffer.from(certificate.publicKey.rawData));
  } catch {
    return false;
  }
}

const NAMES: Record<string, string> = {
  '2.5.29.19': 'basic constraints',
  '2.5.29.15': 'key usage',
  '2.5.29.37': 'extended key usage',
  '2.5.29.14': 'subject key identifier',
  '2.5.29.30': 'name constraints',
};

function extensionName(oid: string): string {
  return NAMES[oid] ?? oid;
}
