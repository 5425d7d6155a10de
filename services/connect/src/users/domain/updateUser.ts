/**
 * PATCH /v2/users/{userID} (reference UserUpdate): sets the user's full name and/or status in one
 * update. Disabling a user also ends every session they have: their refresh tokens stop at once and
 * /v2/me/* refuse their session tokens (offline verifiers accept those until they expire). Sessions
 * are ended after the status is written, so a refresh racing the change finds either the disabled
 * user (refused) or an ended session (refused).
 *
 * A change of the name or status of an account records user.updated (changeUser.ts), and each
 * session the disabling ends its session.revoked; the backend API has no end-user client, so their
 * metadata is empty.
 */
import type { UserRecord, UserStatus } from '../store/users.js';
import { changeUser } from './changeUser.js';
import { getUser } from './getUser.js';
import type { UserDeps } from './userDeps.js';

export interface UpdateUserInput {
  projectId: string;
  userId: string;
  /** Trimmed; "" removes the name. */
  fullName?: string;
  /** Checked by the validation rules: pending, active or disabled. */
  status?: string;
}

export async function updateUser(deps: Pick<UserDeps, 'users' | 'sessionEnder' | 'events' | 'now'>, input: UpdateUserInput): Promise<UserRecord> {
  const name = input.fullName?.trim();
  const updated = await changeUser(deps, input.projectId, input.userId, {
    ...(name ? { fullName: name } : {}),
    ...(name === '' ? { unsetFullName: true } : {}),
    ...(input.status ? { status: input.status as UserStatus } : {}),
  });
  // Unknown here (or another project's): the same 404 as GET.
  if (!updated) return getUser(deps, input.projectId, input.userId);
  if (updated.status === 'disabled') await deps.sessionEnder.revokeUserSessions(input.projectId, input.userId, 'user_unavailable', deps.now());
  return updated;
}
