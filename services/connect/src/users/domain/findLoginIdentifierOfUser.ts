import type { IdentifierRecord } from '../store/identifiers.js';
import type { UserDeps } from './userDeps.js';

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
): Promise<{ id: string; type: IdentifierRecord['type']; value: string } | undefined> {
  const all = (await deps.identifiers.listForUser(projectId, userId)).filter((r) => r.claimed || !options.claimedOnly);
  const pick = (r: IdentifierRecord) => ({ id: r._id, type: r.type, value: r.value });
  const named = all.find((r) => r.value === username.trim().toLowerCase());
  if (named) return pick(named);
  for (const type of TYPE_PREFERENCE) {
    const first = all.find((r) => r.type === type);
    if (first) return pick(first);
  }
  return undefined;
}
