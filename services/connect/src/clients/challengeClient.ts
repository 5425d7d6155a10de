/**
 * The challenge service behind connect's OneTimeCodes port (shared/domain/oneTimeCodes.ts): builds the
 * messages, carries the call's identity as headers and turns errors into DomainErrors
 * (relayError in serviceCalls.ts).
 */
import type { Client } from '@connectrpc/connect';
import type { ChallengeService } from '../../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import type { OneTimeCodes } from '../shared/domain/oneTimeCodes.js';
import { relayErrorsOf, serviceHeaders } from './serviceCalls.js';

export function rpcOneTimeCodes(challenges: Client<typeof ChallengeService>): OneTimeCodes {
  return {
    send: (call, input) =>
      relayErrorsOf(async () => {
        const r = await challenges.createAndDeliverChallenge(
          { userId: input.userId, challengeType: input.channel, identifierValue: input.identifierValue },
          { headers: serviceHeaders(call) },
        );
        const challenge = r.challenge;
        if (!challenge) throw new Error('the challenge service answered CreateAndDeliverChallenge without a challenge');
        return { challengeId: challenge.challengeId, expiresAtSeconds: Number(challenge.expires) };
      }),

    verify: (call, input) =>
      relayErrorsOf(async () => {
        const r = await challenges.verifyChallenge({ userId: input.userId, challengeId: input.challengeId, value: input.value }, { headers: serviceHeaders(call) });
        // What the code proves is the value the challenge was sent to; without it nothing is proven.
        const identifierValue = r.challenge?.identifierValue;
        if (!identifierValue) throw new Error('the challenge service answered VerifyChallenge without the challenge\'s identifier value');
        return { identifierValue };
      }),

    notifyPasskeyAdded: (call, input) =>
      relayErrorsOf(async () => {
        await challenges.sendNotification(
          { userId: input.userId, email: input.email, kind: 'passkey_added', details: input.passkeyName ? { passkeyName: input.passkeyName } : {} },
          { headers: serviceHeaders(call), timeoutMs: 15_000 },
        );
      }),
  };
}
