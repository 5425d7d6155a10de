/** The ceremony service's indexes (created at start-up); the insights module declares its own. */
import type { IndexPlan } from '../../../runtime/mongo.js';
import { authEventIndexes } from './authEvents.js';
import { outboxIndexes } from '../../../runtime/outbox.js';
import { CREDENTIALS } from './credentials.js';
import { SESSIONS } from './sessions.js';
import { WEBAUTHN_USERS } from './webauthnUsers.js';

/** The ceremony's event outbox (services/runtime/outbox.ts). */
export const CEREMONY_OUTBOX = 'ceremony_outbox';

export const ceremonyIndexes: IndexPlan = {
  ...outboxIndexes(CEREMONY_OUTBOX),
  [CREDENTIALS]: [
    // A credential ID exists once per project: re-registering it is refused (passkey_already_exists).
    { key: { projectId: 1, credentialId: 1 }, name: 'project_credential_unique', unique: true },
    { key: { projectId: 1, userId: 1, createdAt: 1 }, name: 'project_user_created' },
  ],
  [SESSIONS]: [
    // Finishes look sessions up by challenge; a challenge is never issued twice.
    { key: { challenge: 1 }, name: 'challenge_unique', unique: true },
    // A user's sessions: the challenge list (backend API, by creation) and a deleted user's sweep.
    // It replaces the former project_user index (a prefix of it), which an existing database may drop.
    { key: { projectId: 1, userId: 1, createdAt: 1 }, name: 'project_user_created' },
    // Expired sessions (and used ones, after their memory) are swept; expiry is also part of every consuming query.
    { key: { expiresAt: 1 }, name: 'expiry_ttl', expireAfterSeconds: 0 },
  ],
  [WEBAUTHN_USERS]: [{ key: { projectId: 1, userId: 1 }, name: 'project_user_unique', unique: true }],
  ...authEventIndexes,
};
