/**
 * The browser a ceremony runs for, from the process's snapshot (what the browser said at init)
 * and what the gateway saw of this call: its address and User-Agent.
 */
import type { ClientSnapshot } from '../store/clientSnapshot.js';
import type { CeremonyClient } from './passkeyCeremonies.js';
import type { FlowCall } from './flowCall.js';

export function describeClient(process: { client: ClientSnapshot; clientEnvHandle: string }, call: Pick<FlowCall, 'clientAddress' | 'userAgent'>): CeremonyClient {
  return { snapshot: process.client, clientEnvHandle: process.clientEnvHandle, remoteAddress: call.clientAddress, userAgent: call.userAgent };
}
