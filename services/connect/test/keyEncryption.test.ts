import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret, KeyDecryptionError, signingKeyAad } from '../src/projects/domain/keyEncryption.js';

const masterKey = Buffer.from('11'.repeat(32), 'hex');
const otherMasterKey = Buffer.from('22'.repeat(32), 'hex');

describe('private key encryption (AES-256-GCM)', () => {
  const aad = signingKeyAad('pro-11111111111111111111', 'kid-1');

  it('round-trips', () => {
    const sealed = encryptSecret(masterKey, aad, '{"d":"secret"}');
    expect(sealed.alg).toBe('A256GCM');
    expect(Buffer.from(sealed.iv, 'base64url')).toHaveLength(12);
    expect(Buffer.from(sealed.tag, 'base64url')).toHaveLength(16);
    expect(sealed.ciphertext).not.toContain('secret');
    expect(decryptSecret(masterKey, aad, sealed)).toBe('{"d":"secret"}');
  });

  it('uses a fresh IV every time', () => {
    const a = encryptSecret(masterKey, aad, 'same');
    const b = encryptSecret(masterKey, aad, 'same');
    expect(a.iv).not.toBe(b.iv);
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });

  it('binds the ciphertext to its project and key ID', () => {
    const sealed = encryptSecret(masterKey, aad, 'private');
    expect(() => decryptSecret(masterKey, signingKeyAad('pro-22222222222222222222', 'kid-1'), sealed)).toThrow(KeyDecryptionError);
    expect(() => decryptSecret(masterKey, signingKeyAad('pro-11111111111111111111', 'kid-2'), sealed)).toThrow(KeyDecryptionError);
  });

  it('fails with another master key or tampered data', () => {
    const sealed = encryptSecret(masterKey, aad, 'private');
    expect(() => decryptSecret(otherMasterKey, aad, sealed)).toThrow(/wrong MASTER_KEY or tampered/);
    const flipped = Buffer.from(sealed.ciphertext, 'base64url');
    flipped[0] ^= 1;
    expect(() => decryptSecret(masterKey, aad, { ...sealed, ciphertext: flipped.toString('base64url') })).toThrow(KeyDecryptionError);
  });

  it('refuses a truncated authentication tag', () => {
    const sealed = encryptSecret(masterKey, aad, 'private');
    // A prefix of the right tag: Node's GCM would accept it (down to 4 bytes) unless the length is pinned.
    const short = Buffer.from(sealed.tag, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => decryptSecret(masterKey, aad, { ...sealed, tag: short })).toThrow(KeyDecryptionError);
  });
});
