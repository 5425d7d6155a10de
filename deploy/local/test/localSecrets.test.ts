/** `npm start`'s internal call key: a fresh one the services accept, or the given one checked before anything starts. */
import { describe, expect, it } from 'vitest';
import { parseInternalAuthKeys } from '../../../services/runtime/internalAuth.js';
import { localInternalAuthKeys } from '../localSecrets.js';

describe('localInternalAuthKeys', () => {
  it('makes a fresh 32-byte hex key per stack when none is given', () => {
    const a = localInternalAuthKeys(undefined);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(() => parseInternalAuthKeys(a)).not.toThrow();
    expect(localInternalAuthKeys('')).not.toBe(a);
  });

  it('passes a valid key list through and stops on a passphrase with the reason', () => {
    const given = `${localInternalAuthKeys(undefined)},${localInternalAuthKeys(undefined)}`;
    expect(localInternalAuthKeys(given)).toBe(given);
    expect(() => localInternalAuthKeys('my secret passphrase')).toThrow(/a passphrase is not a key/);
  });
});
