/** One of the signed-in user's identifiers; another user's (or an unknown one) is a 404, alike, so IDs cannot be probed. */
import { notFound } from '../../../../runtime/errors.js';
import type { IdentifierRecord } from '../../users/index.js';
import type { MeDeps } from './meDeps.js';

export async function myIdentifier(deps: Pick<MeDeps, 'identifiers'>, projectId: string, userId: string, identifierId: string): Promise<IdentifierRecord> {
  const identifier = (await deps.identifiers.listForUser(projectId, userId)).find((i) => i._id === identifierId);
  if (!identifier) throw notFound('identifier_not_found', `the signed-in user has no identifier ${identifierId}`);
  return identifier;
}
