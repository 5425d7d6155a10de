/**
 * The local stack's secrets. The development master key: generated once into .local/master.key
 * (git-ignored) so a local stack keeps decrypting the keys it stored before. The internal call key:
 * fresh per stack (nothing outside the stack calls the services). Production passes both from a secret.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseInternalAuthKeys } from '../../services/runtime/internalAuth.js';

export const LOCAL_DIR = '.local';

export function localMasterKey(dir = LOCAL_DIR): string {
  const path = join(dir, 'master.key');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const key = randomBytes(32).toString('hex');
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  return key;
}

/** A fresh INTERNAL_AUTH_KEYS value: 32 random bytes as hex, the format services/runtime/internalAuth.ts reads. */
export function newInternalAuthKey(): string {
  return randomBytes(32).toString('hex');
}

/**
 * INTERNAL_AUTH_KEYS for `npm start`: the given value, checked here so a passphrase or a short key
 * stops the launcher with the reason before any process starts; else a fresh key.
 */
export function localInternalAuthKeys(given: string | undefined): string {
  if (given === undefined || given.trim() === '') return newInternalAuthKey();
  parseInternalAuthKeys(given);
  return given;
}
