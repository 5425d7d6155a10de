/**
 * The call context every frontend flow (connect, sign-up/login, /v2/me) works with: who calls
 * (FlowCall), which family of process its token names, and the browser as the ceremony sees it.
 */
import type { ClientSnapshot } from '../store/clientSnapshot.js';
import type { CeremonyClient, ServiceCall } from './passkeyCeremonies.js';

/**
 * Who is calling, as the gateway established it (never from the request body). As a ServiceCall
 * it also names the caller to the ceremony and challenge services.
 */
export interface FlowCall extends ServiceCall {
  /** The end user's address ("" when unknown) and browser, for the ceremony insights. */
  clientAddress: string;
  userAgent: string;
  /** The process a verified process token names (calls after init). */
  processId?: string;
  /** Its family, from the token's `family` claim (absent in tokens signed before the claim; see processFamilyOf). */
  processFamily?: ProcessFamily;
}

/** Which flows a process belongs to: sign-up/login (auth-flows) or the connect flows. */
export type ProcessFamily = 'auth' | 'connect';

/** The family of the process a call's token names: the `family` claim the gateway verified. */
export function processFamilyOf(call: FlowCall): ProcessFamily | undefined {
  if (call.processFamily) return call.processFamily;
  if (!call.processId) return undefined;
  // The one fallback to the ID's prefix: process tokens signed before the claim existed (by the
  // previous release, during a deploy) carry none. Auth processes are "apr-…". Process tokens
  // expire with their process (minutes), so this can go one release after the claim shipped.
  return call.processId.startsWith('apr-') ? 'auth' : 'connect';
}

/**
 * The browser a ceremony runs for, from the process's snapshot (what the browser said at init)
 * and what the gateway saw of this call: its address and User-Agent.
 */
export function describeClient(process: { client: ClientSnapshot; clientEnvHandle: string }, call: Pick<FlowCall, 'clientAddress' | 'userAgent'>): CeremonyClient {
  return { snapshot: process.client, clientEnvHandle: process.clientEnvHandle, remoteAddress: call.clientAddress, userAgent: call.userAgent };
}
