import type { Logger } from 'pino';
import type { IdentifierStore, UserStore } from '../../users/index.js';
import type { SessionStore } from '../store/sessions.js';
import type { ProjectDeps } from '../../projects/index.js';
import type { EventOutbox } from '../../../../runtime/outbox.js';

/** What sessions need: the project (keys, lifetimes), the session store, and the user with their identifiers (token claims). */
export interface SessionDeps extends ProjectDeps {
  sessions: SessionStore;
  users: UserStore;
  identifiers: IdentifierStore;
  logger: Logger;
  /** connect's outbox: session.revoked (revokeSession.ts). */
  events: EventOutbox;
}
