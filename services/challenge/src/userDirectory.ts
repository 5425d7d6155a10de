/** The connect service owns users; this asks it, over RPC, whether one exists. */
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { HEADERS } from '../../runtime/context.js';
import { DomainError } from '../../runtime/errors.js';
import type { UserDirectory } from './domain/createChallenge.js';

export function rpcUserDirectory(users: Client<typeof UserService>): UserDirectory {
  return {
    async userExists(projectId, userId) {
      try {
        await users.getUser({ userId }, { headers: { [HEADERS.projectId]: projectId }, timeoutMs: 5000 });
        return true;
      } catch (err) {
        const ce = ConnectError.from(err);
        if (ce.code === Code.NotFound) return false;
        throw new DomainError('unavailable', 'dependency_unavailable', 'the user directory is not reachable', [], { cause: err });
      }
    },
  };
}
