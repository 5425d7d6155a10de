import type { Logger } from 'pino';
import type { IdentifierStore } from '../store/identifiers.js';
import type { SocialAccountStore } from '../store/socialAccounts.js';
import type { UserStore } from '../store/users.js';
import type { UserCleanup } from '../../shared/domain/userCleanup.js';
import type { EventOutbox } from '../../../../runtime/outbox.js';

/**
 * Ends a user's sessions, each with its session.revoked event (sessions' `userSessionEnder`, composed
 * in main.ts): declared here so that users, which sessions build on, does not import sessions back.
 */
export interface UserSessionEnder {
  revokeUserSessions(projectId: string, userId: string, reason: 'user_unavailable', now: Date): Promise<number>;
}

export interface UserDeps {
  users: UserStore;
  identifiers: IdentifierStore;
  socialAccounts: SocialAccountStore;
  cleanup: UserCleanup;
  /** Disabling a user ends their sessions. */
  sessionEnder: UserSessionEnder;
  /** connect's outbox (`connect_outbox`): user.created, user.updated and user.deleted, recorded before the change is answered. */
  events: EventOutbox;
  logger: Logger;
  now: () => Date;
}
