/**
 * At-rest encryption of the projects' private signing keys (services/runtime/sealWithMasterKey.ts,
 * under this use's own HKDF label), with the project ID and key ID as additional authenticated
 * data, so a ciphertext copied into another project's document (or under another kid) fails to
 * decrypt.
 */
import { openWithMasterKey, sealWithMasterKey } from '../../../../runtime/sealWithMasterKey.js';
import type { EncryptedSecret } from '../store/projects.js';

/** Decryption failed: wrong master key, tampered data or a ciphertext moved to another project. */
export { SealedValueError as KeyDecryptionError } from '../../../../runtime/sealWithMasterKey.js';

/** The HKDF label of this use; changing it would make every stored private key unreadable. */
const LABEL = 'passkeyauth signing keys';

/** The AAD binding a private key's ciphertext to its project and key ID. */
export function signingKeyAad(projectId: string, kid: string): string {
  return `${projectId}:${kid}`;
}

export function encryptSecret(masterKey: Buffer, aad: string, plaintext: string): EncryptedSecret {
  return sealWithMasterKey(masterKey, LABEL, aad, plaintext);
}

export function decryptSecret(masterKey: Buffer, aad: string, sealed: EncryptedSecret): string {
  return openWithMasterKey(masterKey, LABEL, aad, sealed);
}
