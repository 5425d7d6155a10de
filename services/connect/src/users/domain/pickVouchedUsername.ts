/**
 * The user name signedPasskeyData may state as fact. An application maps it to its own user (the
 * connect integration does exactly that), so it may only ever be a value the application vouched
 * for or the user proved: a passkey's own user name is whatever the registering page asserted,
 * and a self sign-up's unproven address is somebody else's as often as not.
 *
 * - The passkey's name when it is a claimed identifier of the user (the application's, or proven).
 * - The passkey's name when the application itself registered the passkey for a user it created
 *   (backend API, B2 with its own `username`) and no unproven identifier of the user asserts the
 *   same value: the application chose that name.
 * - Otherwise the user's first claimed identifier (email, then phone, then username), else "":
 *   nothing vouched for, nothing named.
 */
import type { IdentifierRecord } from '../store/identifiers.js';
import type { UserRecord } from '../store/users.js';
import type { UserDeps } from './userDeps.js';

const TYPE_PREFERENCE: IdentifierRecord['type'][] = ['email', 'phone', 'username'];

export async function pickVouchedUsername(deps: Pick<UserDeps, 'users' | 'identifiers'>, projectId: string, userId: string, passkeyUsername: string): Promise<string> {
  const [user, identifiers] = await Promise.all([deps.users.find(projectId, userId), deps.identifiers.listForUser(projectId, userId)]);
  return user ? chooseVouchedUsername(user, identifiers, passkeyUsername) : '';
}

/** The same choice for a user and identifiers the caller has read already (the connect login reads them once). */
export function chooseVouchedUsername(user: Pick<UserRecord, 'origin'>, identifiers: readonly IdentifierRecord[], passkeyUsername: string): string {
  const named = passkeyUsername.trim().toLowerCase();
  const claimed = identifiers.filter((i) => i.claimed);
  if (claimed.some((i) => i.value === named)) return passkeyUsername;
  const asserted = identifiers.some((i) => !i.claimed && i.value === named);
  if (user.origin !== 'signup' && !asserted && passkeyUsername !== '') return passkeyUsername;
  for (const type of TYPE_PREFERENCE) {
    const first = claimed.find((i) => i.type === type);
    if (first) return first.value;
  }
  return '';
}
