/**
 * Webhook secrets at rest: the signing secret and the basic-auth password are sealed with the
 * master key (services/runtime/sealWithMasterKey.ts, the scheme of connect's signing keys) under
 * this use's own HKDF label, bound to the project and endpoint so a ciphertext copied to another
 * endpoint fails to open.
 */
import { randomBytes } from 'node:crypto';
import { openWithMasterKey, sealWithMasterKey } from '../../../runtime/sealWithMasterKey.js';
import type { SealedSecret } from '../store/webhookEndpoints.js';

export type { SealedSecret };

/** The HKDF label of this use; changing it would make every stored webhook secret unreadable. */
const LABEL = 'passkeyauth webhook secrets';

/** What a sealed secret is bound to: `<projectId>:<endpointId>:<purpose>`. */
export function secretAad(projectId: string, endpointId: string, purpose: 'signing' | 'basic'): string {
  return `${projectId}:${endpointId}:${purpose}`;
}

export function sealSecret(masterKey: Buffer, aad: string, plaintext: string): SealedSecret {
  return sealWithMasterKey(masterKey, LABEL, aad, plaintext);
}

export function openSecret(masterKey: Buffer, aad: string, sealed: SealedSecret): string {
  return openWithMasterKey(masterKey, LABEL, aad, sealed);
}

/** A Standard Webhooks signing secret: "whsec_" + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
