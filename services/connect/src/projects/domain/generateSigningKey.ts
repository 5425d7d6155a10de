/** ES256 (EC P-256) signing keys of a project: generation, the public JWK, and loading the private key. */
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { SigningKeyRecord } from '../store/projects.js';
import { decryptSecret, encryptSecret, signingKeyAad } from './keyEncryption.js';

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

const activationOf = (k: SigningKeyRecord) => (k.activatesAt ?? k.createdAt).getTime();

/**
 * The key new tokens are signed with at `now`: of the keys already active, the one activated last
 * (older ones stay published so their tokens verify). Among equal times the last in the list wins.
 */
export function activeSigningKey(keys: readonly SigningKeyRecord[], now: Date): SigningKeyRecord | null {
  const active = keys.filter((k) => activationOf(k) <= now.getTime());
  let newest: SigningKeyRecord | null = null;
  // No key active yet can only be a clock far behind the one that created the keys: use the first to activate.
  if (!active.length) for (const k of keys) if (!newest || activationOf(k) < activationOf(newest)) newest = k;
  for (const k of active) if (!newest || activationOf(k) >= activationOf(newest)) newest = k;
  return newest;
}

/** The keys tokens may still be verified with at `now`: every key not yet retired. */
export function liveSigningKeys(keys: readonly SigningKeyRecord[], now: Date): SigningKeyRecord[] {
  return keys.filter((k) => !k.retiresAt || k.retiresAt.getTime() > now.getTime());
}

/** Decrypts and imports a project's private key; it exists in plain form only in this process's memory. */
export async function loadPrivateKey(masterKey: Buffer, projectId: string, key: SigningKeyRecord): Promise<CryptoKey> {
  const jwk = JSON.parse(decryptSecret(masterKey, signingKeyAad(projectId, key.kid), key.encryptedPrivateKey)) as JWK;
  return (await importJWK(jwk, 'ES256')) as CryptoKey;
}
