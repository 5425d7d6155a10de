/** The challenge service delivers email; this asks it, over RPC, to send the passkey-added notice. */
import type { Client } from '@connectrpc/connect';
import type { ChallengeService } from '../../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { HEADERS } from '../../../runtime/context.js';
import type { PasskeyNotifier } from '../domain/deps.js';

export function rpcPasskeyNotifier(challenges: Client<typeof ChallengeService>): PasskeyNotifier {
  return {
    async passkeyAdded(projectId, notice) {
      await challenges.sendNotification(
        { userId: notice.userId, email: notice.email, kind: 'passkey_added', details: { passkeyName: notice.passkeyName, device: notice.device } },
        { headers: { [HEADERS.projectId]: projectId }, timeoutMs: 15_000 },
      );
    },
  };
}
