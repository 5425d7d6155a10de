/**
 * A signer for one project already read: signs any number of ES256 JWTs for it while decrypting
 * each private key it uses once. A request that signs two tokens (the connect login: a session
 * token and signedPasskeyData) reads the project once and opens the key once, instead of once per
 * token (see signToken.ts for the claims every token gets).
 */
import { importJWK, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import type { ProjectRecord, SigningKeyRecord } from '../store/projects.js';
import type { ProjectDeps } from './projectDeps.js';
import { decryptSecret, signingKeyAad } from './keyEncryption.js';

export interface SignTokenOptions {
  /** Lifetime in seconds from now; without it the token does not expire (client keys). */
  expiresIn?: number;
  /** Sign with this key of the project instead of the active one (a rotated-in key before it activates). */
  kid?: string;
}

export interface ProjectSigner {
  project: ProjectRecord;
  sign(claims: JWTPayload, options?: SignTokenOptions): Promise<string>;
}

export function openProjectSigner(deps: Pick<ProjectDeps, 'masterKey' | 'now'>, project: ProjectRecord): ProjectSigner {
  // By kid: the key stays decrypted for this signer's life only (one request), never in a shared cache.
  const opened = new Map<string, Promise<CryptoKey>>();
  return {
    project,
    async sign(claims, options = {}) {
      const key = options.kid !== undefined ? (project.signingKeys.find((k) => k.kid === options.kid) ?? null) : pickActiveSigningKey(project.signingKeys, deps.now());
      // Every project gets a key at creation; a project without one is corrupt data, not bad input.
      if (!key) throw new Error(`project ${project._id} has no signing key${options.kid !== undefined ? ` ${options.kid}` : ''}`);
      if (options.expiresIn !== undefined && (!Number.isInteger(options.expiresIn) || options.expiresIn <= 0)) {
        throw new Error(`expiresIn must be a positive number of seconds, got ${options.expiresIn}`);
      }
      let privateKey = opened.get(key.kid);
      if (!privateKey) opened.set(key.kid, (privateKey = loadPrivateKey(deps.masterKey, project._id, key)));
      const iat = Math.floor(deps.now().getTime() / 1000);
      const jwt = new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
        .setIssuer(project.frontendApiUrl)
        .setAudience(project._id)
        .setIssuedAt(iat);
      if (options.expiresIn !== undefined) jwt.setExpirationTime(iat + options.expiresIn);
      return jwt.sign(await privateKey);
    },
  };
}

const activationOf = (k: SigningKeyRecord) => (k.activatesAt ?? k.createdAt).getTime();

/**
 * The key new tokens are signed with at `now`: of the keys already active, the one activated last
 * (older ones stay published so their tokens verify). Among equal times the last in the list wins.
 */
function pickActiveSigningKey(keys: readonly SigningKeyRecord[], now: Date): SigningKeyRecord | null {
  const active = keys.filter((k) => activationOf(k) <= now.getTime());
  let newest: SigningKeyRecord | null = null;
  // No key active yet can only be a clock far behind the one that created the keys: use the first to activate.
  if (!active.length) for (const k of keys) if (!newest || activationOf(k) < activationOf(newest)) newest = k;
  for (const k of active) if (!newest || activationOf(k) >= activationOf(newest)) newest = k;
  return newest;
}

/** Decrypts (keyEncryption.ts) and imports a project's private key; it exists in plain form only in this process's memory. */
async function loadPrivateKey(masterKey: Buffer, projectId: string, key: SigningKeyRecord): Promise<CryptoKey> {
  const jwk = JSON.parse(decryptSecret(masterKey, signingKeyAad(projectId, key.kid), key.encryptedPrivateKey)) as JWK;
  return (await importJWK(jwk, 'ES256')) as CryptoKey;
}
