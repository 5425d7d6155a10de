/**
 * The user of a connect token's identifier, created on first use: the application's server vouched
 * for this identifier (it issued the token for its signed-in user), so the identifier is stored as
 * verified and claimed. Only a claimed holder of the value is adopted (one the application created
 * or the user proved, findUserByIdentifier): a self sign-up that merely asserted the address is
 * never adopted, and it loses the value to the application's user. Two first appends racing for one
 * identifier are settled by the identifiers' unique index (claimed values): the loser removes the
 * user it created and takes the winner's.
 *
 * user.created is recorded around the identifier's insert, not the user's: the user is an account
 * once it holds the identifier, and the loser of the race (whose user is removed again) records
 * none. The browser of the append is the event's client.
 */
import { newId } from '../../../../runtime/ids.js';
import { eventClientOf, recordIfChanged } from '../../shared/domain/changeEvents.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import { findUserByIdentifier, userEventData, type LoginIdentifier, type UserRecord } from '../../users/index.js';
import type { ConnectFlowDeps } from './flowDeps.js';

export async function ensureUserForIdentifier(
  deps: Pick<ConnectFlowDeps, 'identifiers' | 'users' | 'events' | 'now'>,
  projectId: string,
  identifier: LoginIdentifier,
  displayName: string | undefined,
  from?: Pick<FlowCall, 'clientAddress' | 'userAgent'>,
): Promise<{ user: UserRecord; created: boolean }> {
  const existing = await findUserByIdentifier(deps, projectId, identifier);
  if (existing) return { user: existing, created: false };

  const now = deps.now();
  const name = displayName?.trim().slice(0, 256);
  const user: UserRecord = { _id: newId('usr'), projectId, status: 'active', origin: 'application', ...(name ? { fullName: name } : {}), createdAt: now, updatedAt: now };
  await deps.users.insert(user);
  const event = { projectId, type: 'user.created', data: userEventData(user), ...(from ? { client: eventClientOf(from) } : {}) };
  const created = await recordIfChanged(deps.events, event, async () => {
    const outcome = await deps.identifiers.insert({
      _id: newId('ide'),
      projectId,
      userId: user._id,
      type: identifier.type,
      value: identifier.value,
      status: 'verified',
      source: 'application',
      claimed: true,
      createdAt: now,
      updatedAt: now,
    });
    return outcome === 'created';
  });
  if (created) {
    // Whoever only asserted this value (a self sign-up that never proved it) loses it now.
    await deps.identifiers.deleteUnclaimedByValue(projectId, identifier.type, identifier.value);
    return { user, created: true };
  }

  await deps.users.delete(projectId, user._id);
  const winner = await findUserByIdentifier(deps, projectId, identifier);
  // The identifier exists (the insert said so) but its user is gone: a user deletion raced us.
  if (!winner) throw new Error(`identifier of type ${identifier.type} exists without a user in project ${projectId}`);
  return { user: winner, created: false };
}
