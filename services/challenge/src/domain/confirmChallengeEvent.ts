import type { ChangeConfirmer } from '../../../runtime/outbox.js';
import type { ChallengeStore } from '../store/challenges.js';

/**
 * Whether the change of an event left prepared in the challenge's outbox happened: challenge.locked
 * if that challenge expired for its wrong values. challenge.locked is written ready in one write
 * (EventOutbox.record) and so is not left prepared today; the answer stays true to the data should
 * that change. Anything else: false.
 */
export function confirmChallengeEvent(store: Pick<ChallengeStore, 'find'>): ChangeConfirmer {
  return async (event) => {
    const { userID, challengeID } = event.data;
    if (event.type !== 'challenge.locked' || typeof userID !== 'string' || typeof challengeID !== 'string') return false;
    const challenge = await store.find({ projectId: event.projectId, userId: userID, challengeId: challengeID });
    return challenge?.expiredReason === 'attempts';
  };
}
