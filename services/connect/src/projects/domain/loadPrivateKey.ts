/** Loading a project's ES256 private signing key, which is stored sealed (keyEncryption.ts). */
import { importJWK, type CryptoKey, type JWK } from 'jose';
import type { SigningKeyRecord } from '../store/projects.js';
import { decryptSecret, signingKeyAad } from './keyEncryption.js';

/** Decrypts and imports a project's private key; it exists in plain form only in this process's memory. */
export async function loadPrivateKey(masterKey: Buffer, projectId: string, key: SigningKeyRecord): Promise<CryptoKey> {
  const jwk = JSON.parse(decryptSecret(masterKey, signingKeyAad(projectId, key.kid), key.encryptedPrivateKey)) as JWK;
  return (await importJWK(jwk, 'ES256')) as CryptoKey;
}
