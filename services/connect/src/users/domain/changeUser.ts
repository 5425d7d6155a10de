/**
 * Changes of the user fields a webhook payload carries (status, fullName), each recorded with its
 * event in connect's outbox before it is answered: user.updated for an account's change, and
 * user.created when a self sign-up becomes an account (see "Which changes send an event" in
 * docs/api/webhooks.md).
 *
 * The event states the user's fields after the change, so the change is guarded on the fields as
 * read (status, name, openSignup): if a concurrent change won, the user is read again and the
 * change made on the new state, so no event ever states fields the user did not have.
 */
import { DomainError } from '../../../../runtime/errors.js';
import type { OutboxEvent } from '../../../../runtime/outbox.js';
import { recordIfChanged } from '../../shared/domain/changeEvents.js';
import type { UserChange, UserRecord } from '../store/users.js';
import type { UserDeps } from './userDeps.js';

type Deps = Pick<UserDeps, 'users' | 'events' | 'now'>;
type EventClient = OutboxEvent['client'];

/** Tries before giving up on a user changed concurrently each time (a retryable 503). */
const ATTEMPTS = 3;

/** The `data` of user.created and user.updated: the hosted service's shape, the backend API's user ID. */
export function userEventData(user: Pick<UserRecord, '_id' | 'status' | 'fullName'>): Record<string, unknown> {
  return { userID: user._id, status: user.status, ...(user.fullName ? { fullName: user.fullName } : {}) };
}

/**
 * Sets the user's name and/or status (PATCH /v2/users/{userID}, PATCH /v2/me); `client` is the end
 * user's when the change came from one. The user as changed, or null if there is none.
 */
export async function changeUser(deps: Deps, projectId: string, userId: string, change: Omit<UserChange, 'completeSignup'>, client?: EventClient): Promise<UserRecord | null> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const user = await deps.users.find(projectId, userId);
    if (!user) return null;
    const changed = await applyChange(deps, user, change, client);
    if (changed) return changed;
  }
  throw concurrentChange(userId);
}

/**
 * The end of a sign-up or login (a session starts): a sign-up user becomes an account (user.created,
 * once: only the change that removes openSignup records it), a pending user becomes active
 * (user.updated for an account). Nothing to do for an active or disabled account.
 */
export async function activateUser(deps: Deps, projectId: string, userId: string, client?: EventClient): Promise<void> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const user = await deps.users.find(projectId, userId);
    if (!user || (!user.openSignup && user.status !== 'pending')) return;
    const change: UserChange = { ...(user.status === 'pending' ? { status: 'active' as const } : {}), ...(user.openSignup ? { completeSignup: true } : {}) };
    if (await applyChange(deps, user, change, client)) return;
  }
  throw concurrentChange(userId);
}

/** One guarded update from `user` as read, with its event; null if the user changed meanwhile. */
async function applyChange(deps: Deps, user: UserRecord, change: UserChange, client: EventClient): Promise<UserRecord | null> {
  const expected = { status: user.status, fullName: user.fullName, openSignup: user.openSignup === true };
  const apply = () => deps.users.update(user.projectId, user._id, change, deps.now(), expected);
  const after = { _id: user._id, status: change.status ?? user.status, fullName: change.unsetFullName ? undefined : (change.fullName ?? user.fullName) };
  if (change.completeSignup) return recordIfChanged(deps.events, event(user.projectId, 'user.created', after, client), apply);
  // A sign-up still open is not an account yet: its user.created will state its fields then. A
  // change that leaves the payload's fields as they were is no news.
  if (user.openSignup || (after.status === user.status && after.fullName === user.fullName)) return apply();
  return recordIfChanged(deps.events, event(user.projectId, 'user.updated', after, client), apply);
}

function event(projectId: string, type: string, user: Pick<UserRecord, '_id' | 'status' | 'fullName'>, client: EventClient): OutboxEvent {
  return { projectId, type, data: userEventData(user), ...(client ? { client } : {}) };
}

function concurrentChange(userId: string) {
  return new DomainError('unavailable', 'concurrent_change', `user ${userId} was changed concurrently ${ATTEMPTS} times; try again`, [], { retryAfterSeconds: 1 });
}
