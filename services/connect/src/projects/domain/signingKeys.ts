/**
 * A project's ES256 (EC P-256) signing keys: generation (the private half sealed with the master
 * key), which keys are still live, and the public JWKS.
 */
import { exportJWK, generateKeyPair } from 'jose';
import { randomBytes } from 'node:crypto';
import type { ProjectRecord, PublicJwk, SigningKeyRecord } from '../store/projects.js';
import { encryptSecret, signingKeyAad } from './keyEncryption.js';

/** Generates a key pair and seals its private half for the given project. */
export async function generateSigningKey(masterKey: Buffer, projectId: string, now: Date): Promise<SigningKeyRecord> {
  const kid = randomBytes(16).toString('base64url');
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const pub = await exportJWK(publicKey);
  const priv = await exportJWK(privateKey);
  if (pub.kty !== 'EC' || pub.crv !== 'P-256' || !pub.x || !pub.y) throw new Error(`unexpected key shape from generateKeyPair: ${pub.kty}/${pub.crv}`);
  return {
    kid,
    publicJwk: { kty: 'EC', crv: 'P-256', x: pub.x, y: pub.y, kid, alg: 'ES256', use: 'sig' },
    encryptedPrivateKey: encryptSecret(masterKey, signingKeyAad(projectId, kid), JSON.stringify(priv)),
    createdAt: now,
  };
}

/** The keys tokens may still be verified with at `now`: every key not yet retired. */
export function filterLiveSigningKeys(keys: readonly SigningKeyRecord[], now: Date): SigningKeyRecord[] {
  return keys.filter((k) => !k.retiresAt || k.retiresAt.getTime() > now.getTime());
}

/**
 * The project's JWKS: the public halves of its signing keys that are not retired at `now` (a
 * replaced key stays until the last token it signed has expired).
 */
export function listPublicJwks(project: ProjectRecord, now: Date = new Date()): PublicJwk[] {
  return filterLiveSigningKeys(project.signingKeys, now).map((k) => ({ ...k.publicJwk }));
}
