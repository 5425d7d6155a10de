/**
 * Secrets at rest (the projects' private signing keys, webhook signing secrets and basic-auth
 * passwords): AES-256-GCM under a key derived from MASTER_KEY for one use only. MASTER_KEY is shared
 * by every at-rest use, so each use names its own HKDF label and a leak of one derived key or a
 * cross-use collision cannot affect the others. The additional authenticated data binds a
 * ciphertext to what it belongs to (a project and key ID, an endpoint), so one copied elsewhere fails
 * to open. node:crypto does this directly; a library would add nothing but a dependency.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** A sealed value as stored (every field base64url). */
export interface SealedValue {
  alg: 'A256GCM';
  iv: string;
  ciphertext: string;
  tag: string;
}

/** Opening failed: wrong master key, tampered data or a ciphertext moved to another owner. */
export class SealedValueError extends Error {}

function derivedKey(masterKey: Buffer, label: string): Buffer {
  if (masterKey.length !== 32) throw new Error(`the master key must be 32 bytes, got ${masterKey.length}`);
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), label, 32));
}

export function sealWithMasterKey(masterKey: Buffer, label: string, aad: string, plaintext: string): SealedValue {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', derivedKey(masterKey, label), iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { alg: 'A256GCM', iv: iv.toString('base64url'), ciphertext: ciphertext.toString('base64url'), tag: cipher.getAuthTag().toString('base64url') };
}

export function openWithMasterKey(masterKey: Buffer, label: string, aad: string, sealed: SealedValue): string {
  try {
    // authTagLength pins the tag to the full 16 bytes: without it Node accepts a tag truncated to as
    // little as 4 bytes, so a stored ciphertext with a shortened tag would be far easier to forge.
    const decipher = createDecipheriv('aes-256-gcm', derivedKey(masterKey, label), Buffer.from(sealed.iv, 'base64url'), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch (err) {
    // The cause (e.g. "unable to authenticate data") is kept for logs; no key material is in it.
    throw new SealedValueError(`cannot open the secret bound to "${aad}": wrong MASTER_KEY or tampered data`, { cause: err });
  }
}
