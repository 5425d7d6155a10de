/** Process tokens: ES256 JWTs of kind "process" whose `sub` is the process ID and whose expiry is the process's. */
import { signToken } from '../../projects/domain/signToken.js';
import type { ConnectFlowDeps } from './flowDeps.js';

export async function signProcessToken(deps: ConnectFlowDeps, projectId: string, processId: string, lifetimeSeconds: number): Promise<string> {
  return signToken(deps, projectId, { kind: 'process', sub: processId }, { expiresIn: lifetimeSeconds });
}
