import type { EventOutbox, OutboxEvent } from '../../../runtime/outbox.js';
import type { ChallengeRecord } from '../store/challenges.js';

/**
 * challenge.locked: the wrong value that reached the project's limit expired the challenge (the
 * guarded increment lets exactly one attempt reach it, so it is recorded once). Written to the
 * challenge's outbox in one write after the expiry and before the 410 answers it.
 *
 * `data` is `{userID, challengeID, challengeType}`: never the value, and not the identifier (email
 * address or phone number) either. It is personal data, and a payload leaves the service: it is
 * kept with every delivery for two weeks, re-sent on every retry and stored by the receiver. The
 * receiver reads it with its API secret if it needs it (GET /v2/users/{userID}/challenges/{challengeID}).
 * metadata.ip is the end user's address the challenge was made for (the one its attempts are
 * limited by), else the verifying caller's.
 */
export async function recordChallengeLocked(events: Pick<EventOutbox, 'record'>, challenge: ChallengeRecord, callerAddress: string): Promise<void> {
  const event: OutboxEvent = {
    projectId: challenge.projectId,
    type: 'challenge.locked',
    data: { userID: challenge.userId, challengeID: challenge._id, challengeType: challenge.type },
    client: { ip: challenge.clientAddress ?? callerAddress, os: '', browser: '' },
  };
  await events.record(event);
}
