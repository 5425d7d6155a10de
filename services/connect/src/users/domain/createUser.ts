import { invalidArgument } from '../../../../runtime/errors.js';
import { newId } from '../../../../runtime/ids.js';
import type { UserRecord } from '../store/users.js';
import { checkUserStatus } from './identifierRules.js';
import type { UserDeps } from './userDeps.js';

export interface CreateUserInput {
  projectId: string;
  fullName?: string;
  status: string;
  explicitWebauthnId?: string;
}

/** Creates a user of the project. Optional fields are left out of the document rather than stored as null. */
export async function createUser(deps: Pick<UserDeps, 'users' | 'events' | 'now'>, input: CreateUserInput): Promise<UserRecord> {
  const status = checkUserStatus(input.status);
  const fullName = input.fullName?.trim();
  if (fullName !== undefined && fullName.length > 256) {
    throw invalidArgument('validation_error', `fullName must be at most 256 characters, got ${fullName.length}`, [{ field: 'fullName', message: 'must be at most 256 characters' }]);
  }
  const webauthnId = input.explicitWebauthnId;
  if (webauthnId !== undefined && (webauthnId.length < 1 || webauthnId.length > 64)) {
    throw invalidArgument('validation_error', `explicitWebauthnID must be 1 to 64 characters, got ${webauthnId.length}`, [
      { field: 'explicitWebauthnID', message: 'must be 1 to 64 characters' },
    ]);
  }
  const now = deps.now();
  const record: UserRecord = {
    _id: newId('usr'),
    projectId: input.projectId,
    status,
    // The backend API is the application's own word: such a user is never released as abandoned.
    origin: 'application',
    ...(fullName ? { fullName } : {}),
    ...(webauthnId !== undefined ? { explicitWebauthnId: webauthnId } : {}),
    createdAt: now,
    updatedAt: now,
  };
  // The event is made durable around the insert: a create acknowledged to the application always has its webhook event.
  const event = { projectId: record.projectId, type: 'user.created', data: { userID: record._id, status: record.status, ...(fullName ? { fullName } : {}) } };
  await deps.events.around(event, () => deps.users.insert(record));
  return record;
}
