/** What the signed-in user's endpoints (/v2/me/*) need: the connect flows' deps, the challenge service and two small stores. */
import type { IdentifierVerificationStore } from '../store/identifierVerifications.js';
import type { MeAppendStore } from '../store/meAppends.js';
import type { SessionStore } from '../../sessions/index.js';
import type { ConnectFlowDeps } from '../../connect-flows/index.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { OneTimeCodes } from '../../shared/domain/oneTimeCodes.js';
import type { UserCleanup } from '../../shared/domain/userCleanup.js';

export interface MeDeps extends ConnectFlowDeps {
  sessions: SessionStore;
  challenges: OneTimeCodes;
  meAppends: MeAppendStore;
  identifierVerifications: IdentifierVerificationStore;
  /** Deleting one's own account also removes what other services hold for the user. */
  cleanup: UserCleanup;
}

/**
 * A call with a session token, as the gateway established it: the token's `sub` and `sid`. Both
 * are "" when the call did not carry them (a token of another kind, or a call around the gateway).
 */
export interface MeCall extends FlowCall {
  userId: string;
  sessionId: string;
}
