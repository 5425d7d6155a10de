/** ES256 (EC P-256) signing keys of a project: generation, the public JWK, and loading the private key. */
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { decryptSecret, encryptSecret, signingKeyAad, type EncryptedSecret } from './keyEncryption.js';

/** A public verification key as published in the JWKS. */
export interface PublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

export interface SigningKeyRecord {
  kid: string;
  publicJwk: PublicJwk;
  /** The private JWK as JSON, sealed with AES-256-GCM (AAD `${projectId}:${kid}`). */
  encryptedPrivateKey: EncryptedSecret;
  createdAt: Date;
}

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

/** The key new tokens are signed with: the newest one (older ones stay published so their tokens verify). */
export function activeSigningKey(keys: readonly SigningKeyRecord[]): SigningKeyRecord | null {
  let newest: SigningKeyRecord | null = null;
  for (const k of keys) if (!newest || k.createdAt.getTime() >= newest.createdAt.getTime()) newest = k;
  return newest;
}

/** Decrypts and imports a project's private key; it exists in plain form only in this process's memory. */
export async function loadPrivateKey(masterKey: Buffer, projectId: string, key: SigningKeyRecord): Promise<CryptoKey> {
  const jwk = JSON.parse(decryptSecret(masterKey, signingKeyAad(projectId, key.kid), key.encryptedPrivateKey)) as JWK;
  return (await importJWK(jwk, 'ES256')) as CryptoKey;
}
