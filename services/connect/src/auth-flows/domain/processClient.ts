/** The ceremony's view of the browser in an auth process (what process/init reported, if it ran). */
import type { AuthProcessRecord } from '../store/authProcesses.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';
import { describeClient } from '../../shared/domain/describeClient.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { CeremonyClient } from '../../shared/domain/passkeyCeremonies.js';

const UNKNOWN_CLIENT: ClientSnapshot = { uvpaAvailable: false, conditionalMediationAvailable: false, capabilities: {} };

export function describeAuthClient(process: Pick<AuthProcessRecord, 'client' | 'clientEnvHandle'>, call: FlowCall): CeremonyClient {
  return describeClient({ client: process.client ?? UNKNOWN_CLIENT, clientEnvHandle: process.clientEnvHandle ?? '' }, call);
}
