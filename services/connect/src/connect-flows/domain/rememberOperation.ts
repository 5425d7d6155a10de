/** The client environment's memory of the passkeyOperation of a connect finish answer. */
import type { ConnectFlowDeps } from './flowDeps.js';
import type { PasskeyOperationResult } from './describePasskeyOperation.js';

/** Remembers the operation for the environment (newClientState); losing it only loses a hint. */
export async function rememberOperation(deps: Pick<ConnectFlowDeps, 'clientEnvs' | 'logger' | 'now'>, projectId: string, handle: string, op: PasskeyOperationResult): Promise<void> {
  try {
    await deps.clientEnvs.setLastLogin(projectId, handle, {
      operationType: op.operationType,
      identifierValue: op.identifierValue,
      identifierType: op.identifierType,
      ceremonyType: op.ceremonyType,
      at: deps.now(),
    });
  } catch (err) {
    deps.logger.warn({ err, projectId }, 'last passkey operation of a client environment could not be stored');
  }
}
