/**
 * The identifier a user logs in by: its type follows from what was typed (classifyIdentifier), it
 * finds the user only once claimed (findUserByIdentifier), and a user's login identifier is the
 * one matching their username or else the first by type (findLoginIdentifierOfUser).
 */
import { DomainError } from '../../../../runtime/errors.js';
import type { IdentifierRecord, IdentifierType } from '../store/identifiers.js';
import type { UserRecord } from '../store/users.js';
import { normalizeIdentifier } from './identifierRules.js';
import type { UserDeps } from './userDeps.js';

/**
 * Connect flows name users by the identifier the application knows them by (what the user typed,
 * or what the application's server put into a connect token). Its type follows from its shape:
 * an "@" makes an email address, a leading "+" and digits a phone number, anything else a username.
 */
export interface LoginIdentifier {
  type: IdentifierType;
  /** Normalized as stored (see identifierRules). */
  value: string;
}

/** The typed identifier, or null when the value fits none of the identifier rules. */
export function classifyIdentifier(raw: string): LoginIdentifier | null {
  const trimmed = raw.trim();
  const type: IdentifierType = trimmed.includes('@') ? 'email' : /^\+[0-9\s()-]+$/.test(trimmed) ? 'phone' : 'username';
  try {
    return { type, value: normalizeIdentifier(type, trimmed) };
  } catch (err) {
    if (err instanceof DomainError) return null;
    throw err;
  }
}

/**
 * The project's user an identifier belongs to, or null (unknown identifier, or a dangling one).
 * Only a claimed identifier resolves (the store's findByValue): one the application vouched for or
 * the user proved. A value a self sign-up merely asserted names nobody.
 */
export async function findUserByIdentifier(deps: Pick<UserDeps, 'identifiers' | 'users'>, projectId: string, identifier: LoginIdentifier): Promise<UserRecord | null> {
  const found = await deps.identifiers.findByValue(projectId, identifier.type, identifier.value);
  if (!found) return null;
  return deps.users.find(projectId, found.userId);
}

const TYPE_PREFERENCE = ['email', 'phone', 'username'];

/**
 * The identifier a passkey login names the user by: the passkey's user name if it is one of theirs,
 * else the first email, phone or username. With `claimedOnly` (what a connect login reports to the
 * application) only identifiers the application vouched for or the user proved count.
 */
export async function findLoginIdentifierOfUser(
  deps: Pick<UserDeps, 'identifiers'>,
  projectId: string,
  userId: string,
  username: string,
  options: { claimedOnly?: boolean } = {},
): Promise<LoginIdentifierOfUser | undefined> {
  return pickLoginIdentifier(await deps.identifiers.listForUser(projectId, userId), username, options);
}

export interface LoginIdentifierOfUser {
  id: string;
  type: IdentifierRecord['type'];
  value: string;
}

/** The same choice among identifiers of the user the caller has read already (the connect login reads them once). */
export function pickLoginIdentifier(identifiers: readonly IdentifierRecord[], username: string, options: { claimedOnly?: boolean } = {}): LoginIdentifierOfUser | undefined {
  const all = identifiers.filter((r) => r.claimed || !options.claimedOnly);
  const pick = (r: IdentifierRecord) => ({ id: r._id, type: r.type, value: r.value });
  const named = all.find((r) => r.value === username.trim().toLowerCase());
  if (named) return pick(named);
  for (const type of TYPE_PREFERENCE) {
    const first = all.find((r) => r.type === type);
    if (first) return pick(first);
  }
  return undefined;
}
