/**
 * Where the `project` CLI and the local launcher find the store and the master key. A problem here is
 * the environment's, not the command line's (AdminConfigError: exit 1, not 2).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMasterKey } from '../../../runtime/masterKey.js';
import { DEFAULT_PROJECT_URLS, type ProjectUrlConfig } from '../projects/domain/projectDeps.js';
import { checkBaseUrl, frontendApiUrlFor } from '../projects/domain/projectRules.js';

/** The repository root, where `.local/master.key` lives. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const DEFAULT_MONGODB_URI = 'mongodb://127.0.0.1:27017/passkeyauth';
export const MASTER_KEY_FILE = '.local/master.key';

/** Configuration needed to reach the store; a problem here is the environment's, not the arguments'. */
export class AdminConfigError extends Error {}

export interface ProjectAdminConfig {
  mongodbUri: string;
  masterKey: Buffer;
  urls: ProjectUrlConfig;
}

/**
 * Reads MONGODB_URI, MASTER_KEY (or else `.local/master.key`, 64 hex characters, as written by the
 * local launcher), FRONTEND_API_URL and BACKEND_API_URL, with the service's defaults.
 */
export function projectAdminConfigFromEnv(env: NodeJS.ProcessEnv = process.env, root = REPO_ROOT): ProjectAdminConfig {
  const urls: ProjectUrlConfig = {
    frontendApiUrl: env.FRONTEND_API_URL || DEFAULT_PROJECT_URLS.frontendApiUrl,
    backendApiUrl: env.BACKEND_API_URL || DEFAULT_PROJECT_URLS.backendApiUrl,
  };
  try {
    frontendApiUrlFor(urls.frontendApiUrl, 'pro-1');
    urls.backendApiUrl = checkBaseUrl('BACKEND_API_URL', urls.backendApiUrl);
  } catch (err) {
    throw new AdminConfigError((err as Error).message);
  }
  return { mongodbUri: env.MONGODB_URI || DEFAULT_MONGODB_URI, masterKey: loadMasterKey(env, root), urls };
}

function loadMasterKey(env: NodeJS.ProcessEnv, root: string): Buffer {
  if (env.MASTER_KEY) {
    try {
      return parseMasterKey(env.MASTER_KEY);
    } catch (err) {
      throw new AdminConfigError(`MASTER_KEY is not usable: ${(err as Error).message}`);
    }
  }
  const file = resolve(root, MASTER_KEY_FILE);
  if (!existsSync(file)) {
    throw new AdminConfigError(`no master key: set MASTER_KEY (32 bytes as 64 hex characters) or create ${file} (npm start writes one)`);
  }
  const hex = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new AdminConfigError(`${file} must contain exactly 64 hex characters (a 32-byte key)`);
  return Buffer.from(hex, 'hex');
}
