import type { ChallengeKey } from '../store/challenges.js';
import { challengeNotFound, persistExpiry, stateAt, viewOf, type ChallengeView } from './challengeState.js';
import type { CreateChallengeDeps } from './createChallenge.js';

export type GetChallengeDeps = Pick<CreateChallengeDeps, 'store' | 'projects' | 'now'>;

/**
 * A challenge of the project's user with its current status: a pending challenge whose lifetime
 * ended or that took too many wrong values is reported (and from now on stored) as expired.
 */
export async function getChallenge(deps: GetChallengeDeps, key: ChallengeKey): Promise<ChallengeView> {
  const record = await deps.store.find(key);
  if (!record) throw challengeNotFound(key.challengeId);
  // Completed and expired are final: no clock or setting can change them.
  if (record.status !== 'pending') return viewOf(record);
  const { maxChallengeAttempts } = await deps.projects.get(key.projectId);
  const now = deps.now();
  return viewOf(await persistExpiry(deps.store, record, stateAt(record, now, maxChallengeAttempts), now));
}
