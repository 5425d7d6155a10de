/**
 * The browser a ceremony runs for, from the process's snapshot (what the browser said at init)
 * and what the gateway saw of this call: its address and User-Agent.
 */
import type { ProcessRecord } from '../../connect-flows/store/processes.js';
import type { CeremonyClient } from './passkeyCeremonies.js';
import type { FlowCall } from '../../connect-flows/domain/flowDeps.js';

export function describeClient(process: Pick<ProcessRecord, 'client' | 'clientEnvHandle'>, call: Pick<FlowCall, 'clientAddress' | 'userAgent'>): CeremonyClient {
  return { snapshot: process.client, clientEnvHandle: process.clientEnvHandle, remoteAddress: call.clientAddress, userAgent: call.userAgent };
}
