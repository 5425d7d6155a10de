import { SignJWT, type JWTPayload } from 'jose';
import type { ProjectDeps } from './projectDeps.js';
import { pickActiveSigningKey } from './pickActiveSigningKey.js';
import { loadPrivateKey } from './loadPrivateKey.js';
import { getProject } from './getProject.js';

export interface SignTokenOptions {
  /** Lifetime in seconds from now; without it the token does not expire (client keys). */
  expiresIn?: number;
  /** Sign with this key of the project instead of the active one (a rotated-in key before it activates). */
  kid?: string;
}

/**
 * Signs an ES256 JWT with the project's active key. The signer sets `iss` (the project's frontend
 * API URL, exactly as stored: verifiers such as the Node SDK compare it literally), `aud` (the
 * project ID), `iat` and, if asked, `exp`; claims cannot override them. The private key is
 * decrypted here and never leaves this process.
 */
export async function signToken(
  deps: Pick<ProjectDeps, 'projects' | 'masterKey' | 'now'>,
  projectId: string,
  claims: JWTPayload,
  options: SignTokenOptions = {},
): Promise<string> {
  const project = await getProject(deps, projectId);
  const key = options.kid !== undefined ? (project.signingKeys.find((k) => k.kid === options.kid) ?? null) : pickActiveSigningKey(project.signingKeys, deps.now());
  // Every project gets a key at creation; a project without one is corrupt data, not bad input.
  if (!key) throw new Error(`project ${projectId} has no signing key${options.kid !== undefined ? ` ${options.kid}` : ''}`);
  if (options.expiresIn !== undefined && (!Number.isInteger(options.expiresIn) || options.expiresIn <= 0)) {
    throw new Error(`expiresIn must be a positive number of seconds, got ${options.expiresIn}`);
  }
  const iat = Math.floor(deps.now().getTime() / 1000);
  const jwt = new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
    .setIssuer(project.frontendApiUrl)
    .setAudience(project._id)
    .setIssuedAt(iat);
  if (options.expiresIn !== undefined) jwt.setExpirationTime(iat + options.expiresIn);
  return jwt.sign(await loadPrivateKey(deps.masterKey, project._id, key));
}
