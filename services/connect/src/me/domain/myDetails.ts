/** GET /v2/me: the signed-in user with their identifiers (oldest first). This service links no social accounts. */
import type { IdentifierRecord } from '../../users/index.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { signedInUser } from './signedInUser.js';

export interface Me {
  id: string;
  fullName: string;
  identifiers: Array<Pick<IdentifierRecord, 'type' | 'value' | 'status'> & { id: string }>;
}

export async function getMe(deps: MeDeps, call: MeCall): Promise<Me> {
  const user = await signedInUser(deps, call);
  const identifiers = await deps.identifiers.listForUser(call.projectId, user._id);
  return {
    id: user._id,
    fullName: user.fullName ?? '',
    identifiers: identifiers.map((i) => ({ id: i._id, value: i.value, type: i.type, status: i.status })),
  };
}
