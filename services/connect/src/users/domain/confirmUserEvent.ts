import type { ChangeConfirmer } from '../../../../runtime/outbox.js';
import type { UserStore } from '../store/users.js';

/**
 * Whether the change of a user event left prepared in connect's outbox happened (its writer died
 * between the change and marking it ready): user.created if the user exists, user.deleted if it
 * does not. A user created and deleted again within that minute loses its user.created (the
 * deletion's event still goes out).
 */
export function confirmUserEvent(users: Pick<UserStore, 'find'>): ChangeConfirmer {
  return async (event) => {
    const userId = typeof event.data.userID === 'string' ? event.data.userID : '';
    const exists = userId !== '' && (await users.find(event.projectId, userId)) !== null;
    if (event.type === 'user.created') return exists;
    if (event.type === 'user.deleted') return !exists;
    return false;
  };
}
