/** ES256 (EC P-256) signing keys of a project: generation and the public JWK. */
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import type { SigningKeyRecord } from '../store/projects.js';
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
