/** What the connect flows (F5–F10 and companions) need: connect's own stores and the ceremony service. */
import type { Logger } from 'pino';
import type { ClientEnvStore } from '../../shared/store/clientEnvs.js';
import type { ConnectTokenStore } from '../../connect-tokens/store/connectTokens.js';
import type { IdentifierStore } from '../../users/store/identifiers.js';
import type { ProcessStore } from '../store/processes.js';
import type { SessionStore } from '../../sessions/store/sessions.js';
import type { UserStore } from '../../users/store/users.js';
import type { PasskeyCeremonies, ServiceCall } from '../../shared/domain/passkeyCeremonies.js';
import type { ProjectDeps } from '../../projects/domain/projectDeps.js';

export interface ConnectFlowDeps extends ProjectDeps {
  processes: ProcessStore;
  clientEnvs: ClientEnvStore;
  users: UserStore;
  identifiers: IdentifierStore;
  connectTokens: ConnectTokenStore;
  /** F9 starts a session (sessions/domain). */
  sessions: SessionStore;
  ceremony: PasskeyCeremonies;
  logger: Logger;
}

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
