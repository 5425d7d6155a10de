/** user.created and user.deleted go into connect's outbox before the change is answered, or the change fails. */
import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProject } from '../src/projects/domain/createProject.js';
import { confirmUserEvent } from '../src/users/domain/confirmUserEvent.js';
import type { OutboxRecord } from '../../runtime/outbox.js';
import { as, clients, inMemoryTransport, startTestEnv, type Clients, type TestEnv } from './support.js';

let env: TestEnv;
let rpc: Clients;
let A: string;

beforeAll(async () => {
  env = await startTestEnv();
  rpc = clients(inMemoryTransport(env.deps));
  A = (await createProject(env.deps, { name: 'Events A', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
});
afterAll(() => env?.close());
beforeEach(() => {
  env.events.events = [];
  env.events.failWith = null;
});

describe('user events', () => {
  it('records user.created with the backend API IDs, then user.deleted', async () => {
    const { user } = await rpc.users.createUser({ fullName: 'Ada', status: 'active' }, as(A));
    expect(env.events.events).toEqual([{ projectId: A, type: 'user.created', data: { userID: user!.userId, status: 'active', fullName: 'Ada' } }]);
    await rpc.users.deleteUser({ userId: user!.userId }, as(A));
    expect(env.events.events[1]).toEqual({ projectId: A, type: 'user.deleted', data: { userID: user!.userId } });
  });

  it('answers no success when the event cannot be made durable', async () => {
    env.events.failWith = new Error('store unavailable');
    const err = await rpc.users.createUser({ status: 'active' }, as(A)).then(
      () => null,
      (e: unknown) => ConnectError.from(e),
    );
    expect(err).not.toBeNull();
    expect([Code.Internal, Code.Unavailable]).toContain(err!.code);
    expect(env.events.events).toEqual([]);
  });

  it('confirms an abandoned user.created when the user exists, user.deleted when it does not', async () => {
    const { user } = await rpc.users.createUser({ status: 'active' }, as(A));
    const confirm = confirmUserEvent(env.deps.users);
    const entry = (type: string, userID: string): OutboxRecord => ({ _id: 'evt-1', state: 'prepared', projectId: A, type, occurredAt: new Date(), data: { userID }, ip: '', os: '', browser: '' });
    expect(await confirm(entry('user.created', user!.userId))).toBe(true);
    expect(await confirm(entry('user.deleted', user!.userId))).toBe(false);
    expect(await confirm(entry('user.created', 'usr-1'))).toBe(false);
    expect(await confirm(entry('user.deleted', 'usr-1'))).toBe(true);
    // Another project's user is not this project's.
    expect(await confirm({ ...entry('user.created', user!.userId), projectId: 'pro-other' })).toBe(false);
  });
});
