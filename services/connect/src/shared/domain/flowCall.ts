/** The call context every frontend flow (connect, sign-up/login, /v2/me) works with. */
import type { ServiceCall } from './passkeyCeremonies.js';

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
  /** Its family, from the token's `family` claim (absent in tokens signed before the claim; see processFamilyOf.ts). */
  processFamily?: ProcessFamily;
}

/** Which flows a process belongs to: sign-up/login (auth-flows) or the connect flows. */
export type ProcessFamily = 'auth' | 'connect';
