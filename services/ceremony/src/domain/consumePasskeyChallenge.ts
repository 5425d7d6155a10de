import { failedPrecondition, invalidArgument, notFound } from '../../../runtime/errors.js';
import type { CeremonyDomainDeps } from './deps.js';
import { challengeView, type PasskeyChallengeView } from './listPasskeyChallenges.js';

/**
 * The application marks a pending challenge of the user consumed (backend API
 * PasskeyChallengeUpdate with status "consumed"): one guarded update, after which a finish
 * answering it fails exactly like a replayed one (`challenge_not_found_or_used`). Marking a consumed
 * one again answers it unchanged; one a finish already used is failed_precondition
 * `passkey_challenge_completed`. pending and completed are the ceremony's own statuses and cannot be set.
 */
export async function consumePasskeyChallenge(
  deps: Pick<CeremonyDomainDeps, 'sessions' | 'now'>,
  input: { projectId: string; userId: string; challengeId: string; status: string },
): Promise<PasskeyChallengeView> {
  if (input.status !== 'consumed') {
    throw invalidArgument('validation_error', `status can only be set to "consumed", got ${JSON.stringify(input.status)}`, [{ field: 'status', message: 'must be "consumed"' }]);
  }
  const consumed = await deps.sessions.markConsumed(input.projectId, input.userId, input.challengeId, deps.now());
  if (consumed) return challengeView(consumed);
  // Why the guard failed: no such challenge of this user here, or it is no longer pending.
  const current = await deps.sessions.find(input.projectId, input.userId, input.challengeId);
  if (!current) throw notFound('passkey_challenge_not_found', `user ${input.userId} has no passkey challenge ${input.challengeId}`);
  if (current.status === 'consumed') return challengeView(current);
  throw failedPrecondition('passkey_challenge_completed', `passkey challenge ${input.challengeId} was already used by a finish`);
}
