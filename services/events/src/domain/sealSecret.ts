/**
 * Webhook secrets at rest: the signing secret and the basic-auth password are sealed with
 * AES-256-GCM under a key derived from MASTER_KEY for this use only (the same scheme as connect's
 * signing keys, services/connect/src/projects/domain/keyEncryption.ts, with its own HKDF label),
 * bound to the project and endpoint so a ciphertext copied to another endpoint fails to open.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { SealedSecret } from '../store/webhookEndpoints.js';

export type { SealedSecret };

function sealingKey(masterKey: Buffer): Buffer {
  if (masterKey.length !== 32) throw new Error(`the master key must be 32 bytes, got ${masterKey.length}`);
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'passkeyauth webhook secrets', 32));
}

/** What a sealed secret is bound to: `<projectId>:<endpointId>:<purpose>`. */
export function secretAad(projectId: string, endpointId: string, purpose: 'signing' | 'basic'): string {
  return `${projectId}:${endpointId}:${purpose}`;
}

export function sealSecret(masterKey: Buffer, aad: string, plaintext: string): SealedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(masterKey), iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { alg: 'A256GCM', iv: iv.toString('base64url'), ciphertext: ciphertext.toString('base64url'), tag: cipher.getAuthTag().toString('base64url') };
}

export function openSecret(masterKey: Buffer, aad: string, sealed: SealedSecret): string {
  // The full 16-byte tag: Node would accept a truncated one otherwise.
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(masterKey), Buffer.from(sealed.iv, 'base64url'), { authTagLength: 16 });
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/** A Standard Webhooks signing secret: "whsec_" + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
