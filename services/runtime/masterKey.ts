/** MASTER_KEY: 32 random bytes, given as 64 hex characters or base64; the root of all at-rest encryption. */
export function parseMasterKey(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new Error('MASTER_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}
