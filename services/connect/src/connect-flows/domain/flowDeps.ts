/** What the connect flows (F5–F10 and companions) need: connect's own stores and the ceremony service. */
import type { Logger } from 'pino';
import type { ClientEnvStore } from '../../shared/store/clientEnvs.js';
import type { ConnectTokenStore } from '../../connect-tokens/store/connectTokens.js';
import type { IdentifierStore } from '../../users/store/identifiers.js';
import type { ProcessStore } from '../store/processes.js';
import type { SessionStore } from '../../sessions/store/sessions.js';
import type { UserStore } from '../../users/store/users.js';
import type { PasskeyCeremonies } from '../../shared/domain/passkeyCeremonies.js';
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
