/**
 * The development master key: generated once into .local/master.key (git-ignored) so a local
 * stack keeps decrypting the keys it stored before. Production passes MASTER_KEY from a secret.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCAL_DIR = '.local';

export function localMasterKey(dir = LOCAL_DIR): string {
  const path = join(dir, 'master.key');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const key = randomBytes(32).toString('hex');
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  return key;
}
