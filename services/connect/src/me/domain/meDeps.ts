/**
 * What the signed-in user's endpoints (/v2/me/*) need: what sessions need (SessionDeps: projects,
 * users, identifiers, sessions), the ceremony service (passkeys), the challenge service (codes), the
 * client environments, the user cleanup and two small stores of their own. Composed in server.ts.
 */
import type { IdentifierVerificationStore } from '../store/identifierVerifications.js';
import type { MeAppendStore } from '../store/meAppends.js';
import type { SessionDeps } from '../../sessions/index.js';
import type { ClientEnvStore } from '../../shared/store/clientEnvs.js';
import type { PasskeyCeremonies } from '../../shared/domain/passkeyCeremonies.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { OneTimeCodes } from '../../shared/domain/oneTimeCodes.js';
import type { UserCleanup } from '../../shared/domain/userCleanup.js';
import type { SocialAccountStore } from '../../users/index.js';

export interface MeDeps extends SessionDeps {
  ceremony: PasskeyCeremonies;
  clientEnvs: ClientEnvStore;
  challenges: OneTimeCodes;
  meAppends: MeAppendStore;
  identifierVerifications: IdentifierVerificationStore;
  /** Deleting one's own account also removes what other services hold for the user. */
  cleanup: UserCleanup;
  /** GET /v2/me lists the user's social accounts; deleting one's own account removes them. */
  socialAccounts: SocialAccountStore;
}

/**
 * A call with a session token, as the gateway established it: the token's `sub` and `sid`. Both
 * are "" when the call did not carry them (a token of another kind, or a call around the gateway).
 */
export interface MeCall extends FlowCall {
  userId: string;
  sessionId: string;
}
