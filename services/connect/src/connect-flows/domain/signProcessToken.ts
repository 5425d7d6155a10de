/** Process tokens: ES256 JWTs of kind "process" whose `sub` is the process ID and whose expiry is the process's. */
import { signToken } from '../../projects/domain/signToken.js';
import { verifyProjectToken } from '../../projects/domain/verifyProjectToken.js';
import type { ConnectFlowDeps } from './flowDeps.js';

export async function signProcessToken(deps: ConnectFlowDeps, projectId: string, processId: string, lifetimeSeconds: number): Promise<string> {
  return signToken(deps, projectId, { kind: 'process', sub: processId }, { expiresIn: lifetimeSeconds });
}

/** The process ID a process token of this project names, or null if the token is not one. */
export async function processIdOfToken(deps: ConnectFlowDeps, projectId: string, token: string): Promise<string | null> {
  const claims = await verifyProjectToken(deps, projectId, token, 'process');
  return typeof claims?.sub === 'string' ? claims.sub : null;
}
