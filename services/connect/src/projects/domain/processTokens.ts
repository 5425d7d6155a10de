/**
 * Process tokens: ES256 JWTs of kind "process" whose `sub` is the process ID, whose `family` claim
 * says which flows the process belongs to (the gateway passes it on; processFamilyOf in shared/domain/flowCall.ts
 * reads it) and whose expiry is the process's. Signed with the project's key like every token of a
 * project, so the connect flows and the sign-up/login flows both take them from here.
 */
import type { ProcessFamily } from '../../shared/domain/flowCall.js';
import type { ProjectDeps } from './projectDeps.js';
import { signToken } from './signToken.js';
import { verifyProjectToken } from './verifyProjectToken.js';

type TokenDeps = Pick<ProjectDeps, 'projects' | 'masterKey' | 'now'>;

export async function signProcessToken(deps: TokenDeps, projectId: string, processId: string, family: ProcessFamily, lifetimeSeconds: number): Promise<string> {
  return signToken(deps, projectId, { kind: 'process', sub: processId, family }, { expiresIn: lifetimeSeconds });
}

/** The process ID a process token of this project names, or null if the token is not one. */
export async function readProcessToken(deps: TokenDeps, projectId: string, token: string): Promise<string | null> {
  const claims = await verifyProjectToken(deps, projectId, token, 'process');
  return typeof claims?.sub === 'string' ? claims.sub : null;
}
