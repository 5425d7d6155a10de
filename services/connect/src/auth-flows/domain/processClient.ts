/** The browser of an auth process: the ceremony's view of it, and a newer self-description replacing the stored one. */
import { describeClient, type FlowCall } from '../../shared/domain/flowCall.js';
import type { CeremonyClient } from '../../shared/domain/passkeyCeremonies.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';
import type { AuthProcessRecord } from '../store/authProcesses.js';
import { advanceProcess } from './advanceProcess.js';
import type { AuthFlowDeps } from './authDeps.js';

/** What the ceremony is told of a browser when process/init never ran: nothing. */
const UNKNOWN_CLIENT: ClientSnapshot = { uvpaAvailable: false, conditionalMediationAvailable: false, capabilities: {} };

/** The ceremony's view of the browser in an auth process (what process/init reported, if it ran). */
export function describeAuthClient(process: Pick<AuthProcessRecord, 'client' | 'clientEnvHandle'>, call: FlowCall): CeremonyClient {
  return describeClient({ client: process.client ?? UNKNOWN_CLIENT, clientEnvHandle: process.clientEnvHandle ?? '' }, call);
}

/** A newer description of the browser replaces the process's (the insights use it). */
export async function updateProcessClient(deps: AuthFlowDeps, process: AuthProcessRecord, client: ClientSnapshot | undefined): Promise<AuthProcessRecord> {
  if (!client) return process;
  return advanceProcess(deps, process, [process.block], { client });
}
