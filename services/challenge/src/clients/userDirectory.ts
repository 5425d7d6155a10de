/**
 * The connect service owns users; this asks it, over RPC, whether one exists. Users found are
 * remembered briefly (asking on every B1 was an RPC per challenge); users missing are not, since
 * one may be created the next moment. The connect service deletes a user's challenges here when
 * it deletes the user, which forgets the user at once; the TTL bounds what other replicas believe.
 */
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { UserService } from '../../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { HEADERS } from '../../../runtime/context.js';
import { DomainError } from '../../../runtime/errors.js';
import { createTtlCache } from '../../../runtime/ttlCache.js';
import type { UserDirectory } from '../domain/createChallenge.js';

export interface UserCacheOptions {
  /** How long a user found is taken as existing (default 60 s). */
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

export function rpcUserDirectory(users: Client<typeof UserService>, opts: UserCacheOptions = {}): UserDirectory {
  const known = createTtlCache<true>({ ttlMs: opts.ttlMs ?? 60_000, maxEntries: opts.maxEntries ?? 100_000, now: opts.now });
  const keyOf = (projectId: string, userId: string) => `${projectId}/${userId}`;
  return {
    async userExists(projectId, userId) {
      if (known.get(keyOf(projectId, userId))) return true;
      try {
        await users.getUser({ userId }, { headers: { [HEADERS.projectId]: projectId }, timeoutMs: 5000 });
        known.set(keyOf(projectId, userId), true);
        return true;
      } catch (err) {
        const ce = ConnectError.from(err);
        if (ce.code === Code.NotFound) return false;
        throw new DomainError('unavailable', 'dependency_unavailable', 'the user directory is not reachable', [], { cause: err });
      }
    },
    forget(projectId, userId) {
      known.forget(keyOf(projectId, userId));
    },
  };
}
