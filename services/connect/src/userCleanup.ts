/** The challenge service owns challenges; this asks it, over RPC, to drop a deleted user's. */
import type { Client } from '@connectrpc/connect';
import { ChallengeService } from '../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { HEADERS } from '../../runtime/context.js';
import type { UserCleanup } from './domain/userDeps.js';

export function rpcUserCleanup(challenges: Client<typeof ChallengeService>): UserCleanup {
  return {
    async deleteUserChallenges(projectId, userId) {
      await challenges.deleteUserChallenges({ userId }, { headers: { [HEADERS.projectId]: projectId }, timeoutMs: 5000 });
    },
  };
}
