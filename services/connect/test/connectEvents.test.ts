/**
 * The events connect records beyond the backend API's create and delete, in memory: user.created
 * when a self sign-up becomes an account (once) and for a connect token's user, user.updated for
 * every change of an account's name or status, session.revoked for every session ended as
 * `revoked`, the client metadata of frontend changes, and connect's ChangeConfirmer for each.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OutboxEvent, OutboxRecord } from '../../runtime/outbox.js';
import type { AuthFlowDeps } from '../src/auth-flows/domain/authDeps.js';
import type { CompletedData } from '../src/auth-flows/domain/blockTypes.js';
import { finishPasskeyAppend } from '../src/auth-flows/domain/finishPasskeyAppend.js';
import { finishPasskeyMediation } from '../src/auth-flows/domain/finishPasskeyMediation.js';
import { finishProcess } from '../src/auth-flows/domain/finishProcess.js';
import { initProcess } from '../src/auth-flows/domain/initProcess.js';
import { initSignup } from '../src/auth-flows/domain/initSignup.js';
import { ensureUserForIdentifier } from '../src/connect-flows/domain/ensureUserForIdentifier.js';
import { updateMyName } from '../src/me/domain/myDetails.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { readProcessToken } from '../src/projects/domain/processTokens.js';
import { confirmConnectEvent } from '../src/server.js';
import { endSession } from '../src/sessions/domain/endSession.js';
import { revokeUserSession } from '../src/sessions/domain/manageUserSessions.js';
import { refreshSession } from '../src/sessions/domain/refreshSession.js';
import { requireActiveRefreshToken } from '../src/sessions/domain/requireActiveRefreshToken.js';
import { startSession } from '../src/sessions/domain/startSession.js';
import type { FlowCall } from '../src/shared/domain/flowCall.js';
import { createUser } from '../src/users/domain/createUser.js';
import { updateUser } from '../src/users/domain/updateUser.js';
import { CAPABLE_BROWSER, FakeCeremonies, FakeOneTimeCodes } from '../../../test/kit/fakeCeremonyAndChallenge.js';
import { startTestEnv, type TestEnv } from './support.js';

const CHROME_ON_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const BROWSER = { ip: '198.51.100.7', os: 'macOS', browser: 'Chrome' };

let env: TestEnv;
let deps: AuthFlowDeps & TestEnv['deps'];
let ceremony: FakeCeremonies;
let A: string;

beforeAll(async () => {
  env = await startTestEnv();
  A = (await createProject(env.deps, { name: 'Connect events', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
});
afterAll(() => env?.close());
beforeEach(() => {
  ceremony = new FakeCeremonies();
  deps = { ...env.deps, ceremony, challenges: new FakeOneTimeCodes() };
  env.events.events = [];
  env.events.failWith = null;
});

function callOf(processId?: string): FlowCall {
  return { projectId: A, requestId: 'req-events', clientAddress: BROWSER.ip, userAgent: CHROME_ON_MAC, ...(processId ? { processId } : {}) };
}

const eventsOf = (type: string): OutboxEvent[] => env.events.events.filter((e) => e.type === type);

/** A sign-up with a passkey up to (not including) its completion; the process call and the user. */
async function openSignup(email: string, fullName?: string) {
  const r = await initProcess(deps, callOf(), { client: CAPABLE_BROWSER, clientEnvHandle: undefined, preferredBlock: 'signup-init' });
  const call = callOf((await readProcessToken(deps, A, r.token))!);
  await initSignup(deps, call, { identifiers: [{ type: 'email', identifier: email }], ...(fullName ? { fullName } : {}) });
  await finishPasskeyAppend(deps, call, '{"id":"att"}');
  return { call, userId: (await deps.authProcesses.find(A, call.processId!))!.userId! };
}

async function activeUser(fullName?: string) {
  const user = await createUser(deps, { projectId: A, status: 'active', ...(fullName ? { fullName } : {}) });
  env.events.events = [];
  return user;
}

function entry(type: string, data: Record<string, unknown>): OutboxRecord {
  return { _id: 'evt-1', state: 'prepared', projectId: A, type, occurredAt: new Date(), data, ip: '', os: '', browser: '' };
}

describe('user.created of a self sign-up', () => {
  it('is recorded once, when the sign-up completes, with the browser as its client', async () => {
    const { call, userId } = await openSignup('ada@example.com', 'Ada');
    expect(await deps.users.find(A, userId)).toMatchObject({ status: 'pending', openSignup: true });
    // A sign-up still open is not an account: no event yet.
    expect(env.events.events).toEqual([]);

    const done = await finishProcess(deps, call);
    expect((done.data as CompletedData).shortSession).not.toBe('');
    expect(env.events.events).toEqual([{ projectId: A, type: 'user.created', data: { userID: userId, status: 'active', fullName: 'Ada' }, client: BROWSER }]);
    const user = await deps.users.find(A, userId);
    expect(user).toMatchObject({ status: 'active' });
    expect(user).not.toHaveProperty('openSignup');

    // Logging in again completes another process: the user is an account already, nothing is news.
    ceremony.passkeyData = { id: 'cre-1', userId, username: 'ada@example.com', challengeId: 'cha-1', ceremonyType: 'local' };
    const again = await initProcess(deps, callOf(), { client: CAPABLE_BROWSER, clientEnvHandle: undefined, preferredBlock: 'login-init' });
    await finishPasskeyMediation(deps, callOf((await readProcessToken(deps, A, again.token))!), '{"id":"m"}');
    expect(eventsOf('user.created')).toHaveLength(1);
    expect(eventsOf('user.updated')).toEqual([]);
  });

  it("records nothing for the application's change of a sign-up still open; user.created then states it", async () => {
    const { call, userId } = await openSignup('grace@example.com');
    await updateUser(deps, { projectId: A, userId, fullName: 'Grace Hopper' });
    expect(env.events.events).toEqual([]);
    await finishProcess(deps, call);
    expect(env.events.events).toEqual([{ projectId: A, type: 'user.created', data: { userID: userId, status: 'active', fullName: 'Grace Hopper' }, client: BROWSER }]);
  });

  it('records user.updated for a pending account activated by a completed login', async () => {
    const user = await createUser(deps, { projectId: A, status: 'pending' });
    env.events.events = [];
    ceremony.passkeyData = { id: 'cre-2', userId: user._id, username: 'pending@example.com', challengeId: 'cha-2', ceremonyType: 'local' };
    const r = await initProcess(deps, callOf(), { client: CAPABLE_BROWSER, clientEnvHandle: undefined, preferredBlock: 'login-init' });
    await finishPasskeyMediation(deps, callOf((await readProcessToken(deps, A, r.token))!), '{"id":"m"}');
    expect(env.events.events).toEqual([{ projectId: A, type: 'user.updated', data: { userID: user._id, status: 'active' }, client: BROWSER }]);
  });

  it('is not answered as done when the event cannot be made durable: the sign-up stays open', async () => {
    const { call, userId } = await openSignup('kat@example.com');
    env.events.failWith = new Error('store unavailable');
    await expect(finishProcess(deps, call)).rejects.toThrow('store unavailable');
    expect(await deps.users.find(A, userId)).toMatchObject({ status: 'pending', openSignup: true });
  });
});

describe("user.created of a connect token's user", () => {
  it('is recorded with the identifier that makes it an account, once', async () => {
    const { user, created } = await ensureUserForIdentifier(deps, A, { type: 'email', value: 'turing@example.com' }, 'Alan Turing', callOf());
    expect(created).toBe(true);
    expect(env.events.events).toEqual([{ projectId: A, type: 'user.created', data: { userID: user._id, status: 'active', fullName: 'Alan Turing' }, client: BROWSER }]);
    expect((await ensureUserForIdentifier(deps, A, { type: 'email', value: 'turing@example.com' }, 'Alan Turing', callOf())).created).toBe(false);
    expect(env.events.events).toHaveLength(1);
  });
});

describe('user.updated', () => {
  it("records the backend API's change of name or status with the user's fields, no client; nothing when nothing changes", async () => {
    const user = await activeUser('Ada');
    await updateUser(deps, { projectId: A, userId: user._id, fullName: 'Ada Lovelace' });
    await updateUser(deps, { projectId: A, userId: user._id, fullName: 'Ada Lovelace', status: 'active' });
    await updateUser(deps, { projectId: A, userId: user._id, fullName: '' });
    expect(env.events.events).toEqual([
      { projectId: A, type: 'user.updated', data: { userID: user._id, status: 'active', fullName: 'Ada Lovelace' } },
      { projectId: A, type: 'user.updated', data: { userID: user._id, status: 'active' } },
    ]);
  });

  it("records the user's own name change through /v2/me with the browser as its client", async () => {
    const user = await activeUser('Old');
    const session = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    await updateMyName(deps, { ...callOf(), userId: user._id, sessionId: session.sessionId }, '  New Name ');
    expect(env.events.events).toEqual([{ projectId: A, type: 'user.updated', data: { userID: user._id, status: 'active', fullName: 'New Name' }, client: BROWSER }]);
  });

  it('changes nothing when the event cannot be made durable', async () => {
    const user = await activeUser('Kept');
    env.events.failWith = new Error('store unavailable');
    await expect(updateUser(deps, { projectId: A, userId: user._id, status: 'disabled' })).rejects.toThrow('store unavailable');
    expect(await deps.users.find(A, user._id)).toMatchObject({ status: 'active', fullName: 'Kept' });
  });
});

describe('session.revoked', () => {
  it("records one per session a user's disabling ends (reason user_disabled), none for a session already ended", async () => {
    const user = await activeUser();
    const one = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    const two = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    const loggedOut = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    await endSession(deps, { projectId: A, sessionId: loggedOut.sessionId });
    await updateUser(deps, { projectId: A, userId: user._id, status: 'disabled' });
    expect(eventsOf('user.updated')).toEqual([{ projectId: A, type: 'user.updated', data: { userID: user._id, status: 'disabled' } }]);
    const revoked = eventsOf('session.revoked');
    expect(revoked).toHaveLength(2);
    expect(revoked.map((e) => e.data.longSessionID).sort()).toEqual([one.sessionId, two.sessionId].sort());
    for (const e of revoked) expect(e).toEqual({ projectId: A, type: 'session.revoked', data: { userID: user._id, longSessionID: e.data.longSessionID, reason: 'user_disabled' } });
    expect((await deps.sessions.findSession(A, loggedOut.sessionId))?.revokeReason).toBe('logout');
  });

  it('records the application revoking a session once; a repeat records nothing', async () => {
    const user = await activeUser();
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    await revokeUserSession(deps, { projectId: A, userId: user._id, sessionId: s.sessionId });
    await revokeUserSession(deps, { projectId: A, userId: user._id, sessionId: s.sessionId });
    expect(env.events.events).toEqual([{ projectId: A, type: 'session.revoked', data: { userID: user._id, longSessionID: s.sessionId, reason: 'revoked_by_application' } }]);
  });

  it('records a refresh-token reuse with the client that showed the spent token; a logout records nothing', async () => {
    const user = await activeUser();
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    await refreshSession(deps, { projectId: A, refreshToken: s.refreshToken!, client: callOf() });
    await expect(refreshSession(deps, { projectId: A, refreshToken: s.refreshToken!, client: callOf() })).rejects.toMatchObject({ type: 'refresh_token_reused' });
    expect(env.events.events).toEqual([{ projectId: A, type: 'session.revoked', data: { userID: user._id, longSessionID: s.sessionId, reason: 'refresh_token_reuse' }, client: BROWSER }]);

    const other = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    await endSession(deps, { projectId: A, sessionId: other.sessionId });
    expect(env.events.events).toHaveLength(1);
  });

  it('records a spent refresh token shown on /v2/me/* as a reuse', async () => {
    const user = await activeUser();
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    await refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! });
    await expect(requireActiveRefreshToken(deps, { projectId: A, refreshToken: s.refreshToken!, client: callOf() })).rejects.toMatchObject({ type: 'refresh_token_reused' });
    expect(env.events.events).toEqual([{ projectId: A, type: 'session.revoked', data: { userID: user._id, longSessionID: s.sessionId, reason: 'refresh_token_reuse' }, client: BROWSER }]);
  });
});

describe("connect's ChangeConfirmer", () => {
  const confirm = () => confirmConnectEvent(env.deps.users, env.deps.sessions);

  it('confirms a user.created only once the sign-up made an account of the user', async () => {
    const { call, userId } = await openSignup('lin@example.com');
    const created = entry('user.created', { userID: userId, status: 'active' });
    expect(await confirm()(created)).toBe(false);
    await finishProcess(deps, call);
    expect(await confirm()(created)).toBe(true);
  });

  it('confirms a user.updated whose fields the user has, not one a later change moved on', async () => {
    const user = await activeUser('Ada');
    expect(await confirm()(entry('user.updated', { userID: user._id, status: 'active', fullName: 'Ada' }))).toBe(true);
    expect(await confirm()(entry('user.updated', { userID: user._id, status: 'disabled', fullName: 'Ada' }))).toBe(false);
    expect(await confirm()(entry('user.updated', { userID: user._id, status: 'active' }))).toBe(false);
    expect(await confirm()(entry('user.updated', { userID: 'usr-1', status: 'active' }))).toBe(false);
  });

  it('confirms a session.revoked whose session ended for that reason only', async () => {
    const user = await activeUser();
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    const byApp = entry('session.revoked', { userID: user._id, longSessionID: s.sessionId, reason: 'revoked_by_application' });
    expect(await confirm()(byApp)).toBe(false);
    await revokeUserSession(deps, { projectId: A, userId: user._id, sessionId: s.sessionId });
    expect(await confirm()(byApp)).toBe(true);
    expect(await confirm()({ ...byApp, data: { ...byApp.data, reason: 'user_disabled' } })).toBe(false);
    expect(await confirm()({ ...byApp, projectId: 'pro-other' })).toBe(false);
    const loggedOut = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    await endSession(deps, { projectId: A, sessionId: loggedOut.sessionId });
    expect(await confirm()(entry('session.revoked', { userID: user._id, longSessionID: loggedOut.sessionId, reason: 'revoked_by_application' }))).toBe(false);
  });
});
