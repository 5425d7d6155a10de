import type { JWTPayload } from 'jose';
import type { ProjectDeps } from './projectDeps.js';
import { getProject } from './getProject.js';
import { openProjectSigner, type SignTokenOptions } from './openProjectSigner.js';

/**
 * Signs an ES256 JWT with the project's active key. The signer sets `iss` (the project's frontend
 * API URL, exactly as stored: verifiers such as the Node SDK compare it literally), `aud` (the
 * project ID), `iat` and, if asked, `exp`; claims cannot override them. The private key is
 * decrypted here and never leaves this process. A request that signs more than one token with a
 * project it has read already uses openProjectSigner.ts directly.
 */
export async function signToken(
  deps: Pick<ProjectDeps, 'projects' | 'masterKey' | 'now'>,
  projectId: string,
  claims: JWTPayload,
  options: SignTokenOptions = {},
): Promise<string> {
  return openProjectSigner(deps, await getProject(deps, projectId)).sign(claims, options);
}
