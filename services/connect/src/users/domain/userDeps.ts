import type { Logger } from 'pino';
import type { IdentifierStore } from '../store/identifiers.js';
import type { UserStore } from '../store/users.js';
import type { SessionStore } from '../../sessions/store/sessions.js';

/** Removes what other services hold for a user (the challenge service's challenges). */
export interface UserCleanup {
  /** Asks the services that keep data of a user (challenges, passkeys) to drop it. */
  deleteUserData(projectId: string, userId: string): Promise<void>;
}

export interface UserDeps {
  users: UserStore;
  identifiers: IdentifierStore;
  cleanup: UserCleanup;
  /** Disabling a user ends their sessions. */
  sessions: Pick<SessionStore, 'revokeUserSessions'>;
  logger: Logger;
  now: () => Date;
}
