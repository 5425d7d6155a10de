/**
 * Process tokens: ES256 JWTs of kind "process" whose `sub` is the process ID, whose `family` claim
 * says which flows the process belongs to (the gateway passes it on; processFamilyOf.ts reads it)
 * and whose expiry is the process's.
 */
import { signToken } from '../../projects/index.js';
import type { ConnectFlowDeps } from './flowDeps.js';
import type { ProcessFamily } from '../../shared/domain/flowCall.js';

export async function signProcessToken(deps: ConnectFlowDeps, projectId: string, processId: string, family: ProcessFamily, lifetimeSeconds: number): Promise<string> {
  return signToken(deps, projectId, { kind: 'process', sub: processId, family }, { expiresIn: lifetimeSeconds });
}
