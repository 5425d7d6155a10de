/**
 * The challenge service's view of users over RPC: users found are remembered (no GetUser per
 * challenge), users missing are asked again, and a deleted user is forgotten at once.
 */
import { Code, ConnectError, createClient, createRouterTransport } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { rpcUserDirectory } from '../src/clients/userDirectory.js';

function fakeUsers(existing: Set<string>) {
  const calls: string[] = [];
  const transport = createRouterTransport((router) =>
    router.service(UserService, {
      getUser(req, ctx) {
        const key = `${ctx.requestHeader.get('x-passkeyauth-project-id')}/${req.userId}`;
        calls.push(key);
        if (!existing.has(key)) throw new ConnectError('no such user', Code.NotFound);
        return { user: { userId: req.userId } };
      },
    }),
  );
  return { client: createClient(UserService, transport), calls };
}

describe('rpcUserDirectory (challenge)', () => {
  it('asks once for a user that exists, every time for one that does not', async () => {
    const existing = new Set(['pro-1/usr-1']);
    const { client, calls } = fakeUsers(existing);
    const users = rpcUserDirectory(client);
    expect(await users.userExists('pro-1', 'usr-1')).toBe(true);
    expect(await users.userExists('pro-1', 'usr-1')).toBe(true);
    expect(await users.userExists('pro-1', 'usr-2')).toBe(false);
    existing.add('pro-1/usr-2');
    expect(await users.userExists('pro-1', 'usr-2')).toBe(true);
    // The same user ID in another project is another user.
    expect(await users.userExists('pro-2', 'usr-1')).toBe(false);
    expect(calls).toEqual(['pro-1/usr-1', 'pro-1/usr-2', 'pro-1/usr-2', 'pro-2/usr-1']);
  });

  it('forgets a deleted user at once, and any after the time to live', async () => {
    const existing = new Set(['pro-1/usr-1', 'pro-1/usr-2']);
    const { client } = fakeUsers(existing);
    let now = 0;
    const users = rpcUserDirectory(client, { ttlMs: 60_000, now: () => now });
    await users.userExists('pro-1', 'usr-1');
    await users.userExists('pro-1', 'usr-2');
    existing.clear();
    users.forget?.('pro-1', 'usr-1');
    expect(await users.userExists('pro-1', 'usr-1')).toBe(false);
    expect(await users.userExists('pro-1', 'usr-2')).toBe(true);
    now += 60_000;
    expect(await users.userExists('pro-1', 'usr-2')).toBe(false);
  });

  it('an unreachable connect service is unavailable, not "no such user"', async () => {
    const transport = createRouterTransport((router) =>
      router.service(UserService, {
        getUser() {
          throw new ConnectError('down', Code.Unavailable);
        },
      }),
    );
    await expect(rpcUserDirectory(createClient(UserService, transport)).userExists('pro-1', 'usr-1')).rejects.toMatchObject({ kind: 'unavailable', type: 'dependency_unavailable' });
  });
});
