/** passkeyOperation of connect finish answers, and the client environment's memory of it. */
import type { PasskeyData } from './passkeyCeremonies.js';
import type { ConnectFlowDeps } from './flowDeps.js';
import type { LoginIdentifier } from './classifyIdentifier.js';

export interface PasskeyOperationResult {
  operationType: 'append' | 'verify';
  identifierValue: string;
  identifierType: string;
  ceremonyType: string;
  aaguidDetails?: { aaguid: string; name: string; iconLight: string; iconDark: string };
}

export function passkeyOperation(operationType: 'append' | 'verify', identifier: LoginIdentifier, data: PasskeyData | undefined): PasskeyOperationResult {
  return {
    operationType,
    identifierValue: identifier.value,
    identifierType: identifier.type,
    ceremonyType: data?.ceremonyType || 'local',
    ...(data?.aaguidDetails ? { aaguidDetails: { aaguid: data.aaguidDetails.aaguid, name: data.aaguidDetails.name, iconLight: data.aaguidDetails.iconLight, iconDark: data.aaguidDetails.iconDark } } : {}),
  };
}

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
