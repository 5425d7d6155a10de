/** Process tokens (signProcessToken.ts): ES256 JWTs of kind "process" whose `sub` is the process ID. */
import { verifyProjectToken } from '../../projects/index.js';
import type { ConnectFlowDeps } from './flowDeps.js';

/** The process ID a process token of this project names, or null if the token is not one. */
export async function readProcessToken(deps: ConnectFlowDeps, projectId: string, token: string): Promise<string | null> {
  const claims = await verifyProjectToken(deps, projectId, token, 'process');
  return typeof claims?.sub === 'string' ? claims.sub : null;
}
