/** What the connect flows (F5–F10 and companions) need: connect's own stores and the ceremony service. */
import type { Logger } from 'pino';
import type { ClientEnvStore } from '../../shared/store/clientEnvs.js';
import type { ConnectTokenStore } from '../../connect-tokens/index.js';
import type { IdentifierStore, UserStore } from '../../users/index.js';
import type { ProcessStore } from '../store/processes.js';
import type { SessionStore } from '../../sessions/index.js';
import type { PasskeyCeremonies } from '../../shared/domain/passkeyCeremonies.js';
import type { ProjectDeps } from '../../projects/index.js';
import type { EventOutbox } from '../../../../runtime/outbox.js';

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
  /** connect's outbox: user.created for the user a connect token's first append creates. */
  events: EventOutbox;
}
