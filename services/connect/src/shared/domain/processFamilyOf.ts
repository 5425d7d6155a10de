/** The family of the process a call's token names: the `family` claim the gateway verified. */
import type { FlowCall, ProcessFamily } from './flowCall.js';

export function processFamilyOf(call: FlowCall): ProcessFamily | undefined {
  if (call.processFamily) return call.processFamily;
  if (!call.processId) return undefined;
  // The one fallback to the ID's prefix: process tokens signed before the claim existed (by the
  // previous release, during a deploy) carry none. Auth processes are "apr-…". Process tokens
  // expire with their process (minutes), so this can go one release after the claim shipped.
  return call.processId.startsWith('apr-') ? 'auth' : 'connect';
}
