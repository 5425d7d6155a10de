import type { Logger } from 'pino';
import type { IdentifierStore } from '../../users/store/identifiers.js';
import type { SessionStore } from '../store/sessions.js';
import type { UserStore } from '../../users/store/users.js';
import type { ProjectDeps } from '../../projects/domain/projectDeps.js';

/** What sessions need: the project (keys, lifetimes), the session store, and the user with their identifiers (token claims). */
export interface SessionDeps extends ProjectDeps {
  sessions: SessionStore;
  users: UserStore;
  identifiers: IdentifierStore;
  logger: Logger;
}
