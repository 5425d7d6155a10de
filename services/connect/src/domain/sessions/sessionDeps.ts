import type { Logger } from 'pino';
import type { IdentifierStore } from '../../store/identifiers.js';
import type { SessionStore } from '../../store/sessions.js';
import type { UserStore } from '../../store/users.js';
import type { ProjectDeps } from '../projectDeps.js';

/** What sessions need: the project (keys, lifetimes), the session store, and the user with their identifiers (token claims). */
export interface SessionDeps extends ProjectDeps {
  sessions: SessionStore;
  users: UserStore;
  identifiers: IdentifierStore;
  logger: Logger;
}
