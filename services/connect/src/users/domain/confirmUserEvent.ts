import type { ChangeConfirmer } from '../../../../runtime/outbox.js';
import type { UserStore } from '../store/users.js';
import { userEventData } from './changeUser.js';

/**
 * Whether the change of a user event left prepared in connect's outbox happened (its writer died
 * between the change and marking it ready):
 * - user.created: the user exists and is an account (no sign-up still open: a sign-up user whose
 *   completion did not happen keeps openSignup, and its user.created comes with the completion);
 * - user.updated: the user is an account and has exactly the fields the event states. If a later
 *   change moved them on, that change's own event states the newer fields, so dropping this one
 *   leaves a receiver with the user as it is;
 * - user.deleted: the user is gone.
 * A user created and deleted again within that minute loses its user.created (the deletion's event
 * still goes out).
 */
export function confirmUserEvent(users: Pick<UserStore, 'find'>): ChangeConfirmer {
  return async (event) => {
    const userId = typeof event.data.userID === 'string' ? event.data.userID : '';
    const user = userId === '' ? null : await users.find(event.projectId, userId);
    if (event.type === 'user.deleted') return user === null;
    if (!user || user.openSignup) return false;
    if (event.type === 'user.created') return true;
    if (event.type === 'user.updated') {
      const now = userEventData(user);
      return now.status === event.data.status && now.fullName === event.data.fullName;
    }
    return false;
  };
}
