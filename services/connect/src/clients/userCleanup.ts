/**
 * The challenge and ceremony services own a user's challenges and passkeys; this asks both, over
 * RPC, to drop a deleted user's. Both are asked even if one fails; any failure is reported.
 */
import type { Client } from '@connectrpc/connect';
import { CeremonyService } from '../../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { ChallengeService } from '../../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { HEADERS } from '../../../runtime/context.js';
import type { UserCleanup } from '../shared/domain/userCleanup.js';

export function rpcUserCleanup(challenges: Client<typeof ChallengeService>, ceremonies: Client<typeof CeremonyService>): UserCleanup {
  return {
    async deleteUserData(projectId, userId) {
      const options = { headers: { [HEADERS.projectId]: projectId }, timeoutMs: 5000 };
      const results = await Promise.allSettled([
        challenges.deleteUserChallenges({ userId }, options),
        ceremonies.deleteUserCredentials({ userId }, options),
      ]);
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed.length) throw new AggregateError(failed.map((f) => f.reason), 'user data cleanup failed');
    },
  };
}
