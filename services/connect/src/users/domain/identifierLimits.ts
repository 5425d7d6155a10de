/**
 * How many identifiers of each type a user may have, whoever adds them (the backend API's
 * POST /v2/users/{userID}/identifiers or the user's own /v2/me/identifier). One username (it is the
 * name the user-details screen shows); a few email addresses and phone numbers, so one account
 * cannot hold an unbounded number of values that nobody else in the project may then use.
 */
import { failedPrecondition } from '../../../../runtime/errors.js';
import type { IdentifierRecord, IdentifierStore, IdentifierType } from '../store/identifiers.js';

export const MAX_IDENTIFIERS_PER_TYPE: Record<IdentifierType, number> = { email: 5, phone: 5, username: 1 };

/**
 * Refuses with failed_precondition `identifier_limit_reached` (409) when the user has no room for
 * another identifier of the type. Called twice by an add: before the insert (nothing written), and
 * with the inserted record after it, because two concurrent adds can both pass the first check; the
 * records beyond the limit are the newest (oldest first), and only such a record removes itself.
 */
export async function checkIdentifierLimit(
  deps: { identifiers: Pick<IdentifierStore, 'listForUser' | 'delete'> },
  projectId: string,
  userId: string,
  type: IdentifierType,
  inserted?: IdentifierRecord,
): Promise<void> {
  const limit = MAX_IDENTIFIERS_PER_TYPE[type];
  const ofType = (await deps.identifiers.listForUser(projectId, userId)).filter((i) => i.type === type);
  const over = inserted ? ofType.findIndex((i) => i._id === inserted._id) >= limit : ofType.length >= limit;
  if (!over) return;
  if (inserted) await deps.identifiers.delete(projectId, userId, inserted._id);
  throw failedPrecondition('identifier_limit_reached', `a user can have at most ${limit} identifier${limit === 1 ? '' : 's'} of type ${type}; change or remove one first`);
}
