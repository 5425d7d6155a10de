import { alreadyExists } from '../../../../runtime/errors.js';
import { newId } from '../../../../runtime/ids.js';
import type { IdentifierRecord } from '../store/identifiers.js';
import { getUser } from './getUser.js';
import { checkIdentifierLimit } from './identifierLimits.js';
import { checkIdentifierStatus, checkIdentifierType, normalizeIdentifier } from './identifierRules.js';
import type { UserDeps } from './userDeps.js';

export interface CreateIdentifierInput {
  projectId: string;
  userId: string;
  type: string;
  value: string;
  status: string;
}

/**
 * Adds a login identifier to a user of the project. The value is normalized first; uniqueness per
 * project and type is enforced by the store's unique index of claimed values (the application's
 * identifiers are claimed), so two concurrent creates cannot both win. The per-type limit
 * (identifierLimits.ts) is the one /v2/me applies, checked before the insert and again after it.
 */
export async function createIdentifier(deps: Pick<UserDeps, 'users' | 'identifiers' | 'now'>, input: CreateIdentifierInput): Promise<IdentifierRecord> {
  const type = checkIdentifierType(input.type);
  const value = normalizeIdentifier(type, input.value);
  const status = checkIdentifierStatus(input.status);
  await getUser(deps, input.projectId, input.userId);
  await checkIdentifierLimit(deps, input.projectId, input.userId, type);
  const now = deps.now();
  // The backend API is the application's own word: its identifiers are vouched for, whatever their status.
  const record: IdentifierRecord = { _id: newId('ide'), projectId: input.projectId, userId: input.userId, type, value, status, source: 'application', claimed: true, createdAt: now, updatedAt: now };
  if ((await deps.identifiers.insert(record)) === 'duplicate') {
    throw alreadyExists('identifier_already_exists', `an identifier of type ${type} with this value already exists in the project`);
  }
  // A concurrent create may have taken the last place since the first check: then this record goes,
  // before it displaces anybody's assertion below.
  await checkIdentifierLimit(deps, input.projectId, input.userId, type, record);
  // The application's word outranks an assertion: whoever only typed this value in (a self sign-up,
  // /v2/me, never proven) loses it, as to a proof.
  await deps.identifiers.deleteUnclaimedByValue(input.projectId, type, value);
  return record;
}
