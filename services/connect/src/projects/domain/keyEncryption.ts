/**
 * At-rest encryption of the projects' private signing keys: AES-256-GCM under a key derived from
 * MASTER_KEY, with the project ID and key ID as additional authenticated data, so a ciphertext
 * copied into another project's document (or under another kid) fails to decrypt.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { EncryptedSecret } from '../store/projects.js';

/** Decryption failed: wrong master key, tampered data or a ciphertext moved to another project. */
export class KeyDecryptionError extends Error {}

/** The AAD binding a private key's ciphertext to its project and key ID. */
export function signingKeyAad(projectId: string, kid: string): string {
  return `${projectId}:${kid}`;
}

/**
 * The key-encryption key. MASTER_KEY is shared by every at-rest use (challenge hashing derives its
 * own key too), so each use gets a separate HKDF-derived key and a leak of one derived key or a
 * cross-use collision cannot affect the others.
 */
function keyEncryptionKey(masterKey: Buffer): Buffer {
  if (masterKey.length !== 32) throw new Error(`the master key must be 32 bytes, got ${masterKey.length}`);
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'passkeyauth signing keys', 32));
}

export function encryptSecret(masterKey: Buffer, aad: string, plaintext: string): EncryptedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyEncryptionKey(masterKey), iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { alg: 'A256GCM', iv: iv.toString('base64url'), ciphertext: ciphertext.toString('base64url'), tag: cipher.getAuthTag().toString('base64url') };
}

export function decryptSecret(masterKey: Buffer, aad: string, sealed: EncryptedSecret): string {
  try {
    // authTagLength pins the tag to the full 16 bytes: without it Node accepts a tag truncated to as
    // little as 4 bytes, so a stored ciphertext with a shortened tag would be far easier to forge.
    const decipher = createDecipheriv('aes-256-gcm', keyEncryptionKey(masterKey), Buffer.from(sealed.iv, 'base64url'), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch (err) {
    // The cause (e.g. "unable to authenticate data") is kept for logs; no key material is in it.
    throw new KeyDecryptionError(`cannot decrypt the secret bound to "${aad}": wrong MASTER_KEY or tampered data`, { cause: err });
  }
}
