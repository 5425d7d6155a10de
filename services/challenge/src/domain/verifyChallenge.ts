import { invalidArgument } from '../../../runtime/errors.js';
import type { ChallengeKey, ChallengeRecord } from '../store/challenges.js';
import { alreadyCompletedError, challengeNotFound, expiredError, persistExpiry, stateAt, viewOf, type ChallengeView } from './challengeState.js';
import type { CreateChallengeDeps } from './createChallenge.js';
import { recordChallengeLocked } from './recordChallengeLocked.js';

export type VerifyChallengeDeps = Pick<CreateChallengeDeps, 'store' | 'projects' | 'limits' | 'hasher' | 'events' | 'now'>;

export interface VerifyChallengeInput extends ChallengeKey {
  /** What the user entered, or the token of the link they followed. Never logged. */
  value: string;
  /** The caller's network address; used for the per-address limit when the challenge has none of its own. */
  clientAddress: string;
}

/**
 * Verifies a value against a pending challenge of the project's user.
 *   right value  → completed, by one guarded update: of two concurrent right values one wins, the
 *                  other finds the challenge completed (409);
 *   wrong value  → one more attempt, by one guarded update; the attempt that reaches the project's
 *                  limit expires the challenge (410) and records challenge.locked, earlier ones say
 *                  how many are left (400);
 *   completed    → 409 challenge_already_completed; expired (lifetime or attempts) → 410 challenge_expired;
 *   not found, or another user's or project's → 404 challenge_not_found.
 */
export async function verifyChallenge(deps: VerifyChallengeDeps, input: VerifyChallengeInput): Promise<ChallengeView> {
  const key: ChallengeKey = { projectId: input.projectId, userId: input.userId, challengeId: input.challengeId };
  let record = await deps.store.find(key);
  if (!record) {
    // Counted too, by the caller's address: guessing challenge IDs is limited as well.
    await deps.limits.countVerification(key.projectId, { challengeId: key.challengeId, userId: key.userId }, input.clientAddress);
    throw challengeNotFound(key.challengeId);
  }
  // Counted before the value is compared: a blocked attempt is never a wrong one. The address is
  // the end user's the challenge was created for (B1 arrives from the application's server).
  await deps.limits.countVerification(key.projectId, { challengeId: key.challengeId, userId: key.userId }, record.clientAddress ?? input.clientAddress);
  const { maxChallengeAttempts: max } = await deps.projects.get(key.projectId);
  const now = deps.now();
  // HMAC compared in constant time, whatever the state, so timing tells nothing about the state either.
  const right = deps.hasher.matches(key.challengeId, input.value, record.valueHash);

  // The second round only runs when a concurrent request changed the record between our read and
  // our update; the guard then failed, and the fresh record is completed or expired.
  for (let round = 0; round < 2; round++) {
    await rejectUnlessPending(deps, record, now, max);
    if (right) {
      const completed = await deps.store.complete(key, now, max);
      if (completed) return viewOf(completed);
    } else {
      const counted = await deps.store.addWrongAttempt(key, now, max);
      if (counted) {
        if (counted.attempts >= max) {
          const expired = (await deps.store.expire(key, now, 'attempts')) ?? counted;
          // This attempt locked the challenge (only one can reach the limit): its event is durable before the 410.
          await recordChallengeLocked(deps.events, expired, input.clientAddress);
          throw expiredError(expired, 'attempts', max);
        }
        const left = max - counted.attempts;
        throw invalidArgument('challenge_value_invalid', `the value is wrong; ${left} attempt(s) left`, [
          { field: 'value', message: `is wrong; ${left} attempt(s) left` },
        ]);
      }
    }
    record = await deps.store.find(key);
    if (!record) throw challengeNotFound(key.challengeId);
  }
  await rejectUnlessPending(deps, record, now, max);
  // The guard of a pending, unexpired, unlocked record cannot fail; reaching here means the store broke that promise.
  throw new Error(`challenge ${key.challengeId} stayed pending but its guarded update matched nothing`);
}

/** Throws the answer for a completed or expired challenge (writing a lazily seen expiry first). */
async function rejectUnlessPending(deps: VerifyChallengeDeps, record: ChallengeRecord, now: Date, max: number): Promise<void> {
  const state = stateAt(record, now, max);
  if (state.status === 'completed') throw alreadyCompletedError(record);
  if (state.status === 'expired') {
    const shown = await persistExpiry(deps.store, record, state, now);
    // A completion that won the race against this expiry write is the truth.
    if (shown.status === 'completed') throw alreadyCompletedError(shown);
    throw expiredError(shown, state.reason, max);
  }
}
