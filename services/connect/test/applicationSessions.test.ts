/**
 * Sessions the application creates through the backend API, in memory: POST
 * /v2/users/{userID}/longSessions (the reference's long session, vouched by the application) and
 * POST …/longSessions/{longSessionID}/shortSessions (session tokens for an active session), with
 * their refusals (bad input naming the field, another project's objects, disabled users, ended sessions).
 */
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import { SessionService } from '../../../gen/passkeyauth/connect/v1/session_service_pb.js';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { HEADERS } from '../../runtime/context.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { getProject } from '../src/projects/domain/getProject.js';
import { listPublicJwks } from '../src/projects/domain/signingKeys.js';
import { updateSessionSettings } from '../src/projects/domain/updateSessionSettings.js';
import { endSession } from '../src/sessions/domain/endSession.js';
import { requireActiveSession } from '../src/sessions/domain/requireActiveSession.js';
import { requireRecentAuthentication } from '../src/sessions/domain/requireRecentAuthentication.js';
import { startSession } from '../src/sessions/domain/startSession.js';
import type { SessionRecord } from '../src/sessions/store/sessions.js';
import { createIdentifier } from '../src/users/domain/createIdentifier.js';
import { createUser } from '../src/users/domain/createUser.js';
import type { ConnectServiceDeps } from '../src/server.js';
import { inMemoryTransport, startTestEnv, type TestEnv } from './support.js';

const DAY = 86_400;

let env: TestEnv;
let clock: Date;
let deps: ConnectServiceDeps;
let rpc: Client<typeof SessionService>;
let usersRpc: Client<typeof UserService>;
let A: string;
let B: string;

beforeAll(async () => {
  env = await startTestEnv({ frontendApiUrl: 'https://{projectID}.auth.example.com', backendApiUrl: 'https://api.example.com' });
  clock = new Date();
  deps = { ...env.deps, now: () => clock };
  const transport = inMemoryTransport(deps);
  rpc = createClient(SessionService, transport);
  usersRpc = createClient(UserService, transport);
  A = (await createProject(deps, { name: 'App sessions A', rpId: 'example.com', origins: ['https://app.example.com'] })).project._id;
  B = (await createProject(deps, { name: 'App sessions B', rpId: 'example.com', origins: ['https://app.example.com'] })).project._id;
});
afterAll(() => env?.close());
beforeEach(() => {
  clock = new Date();
});

const advance = (seconds: number) => (clock = new Date(clock.getTime() + seconds * 1000));
const basic = (projectId: string) => ({ headers: { [HEADERS.projectId]: projectId } });
const issuerOf = (projectId: string) => `https://${projectId}.auth.example.com`;
const sessionRecord = (id: string) => env.store.db.collection<SessionRecord>('sessions').findOne({ _id: id });

async function newUser(projectId: string, email: string, status: 'active' | 'pending' = 'active') {
  const user = await createUser(deps, { projectId, fullName: 'App User', status });
  await createIdentifier(deps, { projectId, userId: user._id, type: 'email', value: email, status: 'verified' });
  return user;
}

async function verify(projectId: string, token: string): Promise<JWTPayload> {
  const project = await getProject(deps, projectId);
  const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: listPublicJwks(project, clock) }), {
    algorithms: ['ES256'],
    issuer: project.frontendApiUrl,
    audience: project._id,
    currentDate: clock,
  });
  return payload;
}

async function errorOf(p: Promise<unknown>): Promise<{ code: Code; type: string; fields: string[] }> {
  try {
    await p;
  } catch (err) {
    const ce = ConnectError.from(err);
    const info = ce.findDetails(ErrorInfoSchema)[0];
    return { code: ce.code, type: info?.type ?? '', fields: info?.validation.map((v) => v.field) ?? [] };
  }
  throw new Error('expected a failure');
}

async function createLong(projectId: string, userId: string, identifierValue: string) {
  const r = await rpc.createUserSession({ userId, appType: 'web', identifierValue }, basic(projectId));
  return r.longSession!;
}

describe('POST /v2/users/{userID}/longSessions', () => {
  it('creates an active session vouched by the application, with the reference\'s fields and no token', async () => {
    const user = await newUser(A, 'created@example.com');
    const long = await createLong(A, user._id, '  Created@Example.com ');
    const record = await sessionRecord(long.longSessionId);
    expect(long).toMatchObject({ longSessionId: expect.stringMatching(/^ses-[0-9]{20}$/), userId: user._id, identifierValue: 'created@example.com', status: 'active' });
    // The refresh lifetime (30 days by default), recorded as the session's absolute end.
    expect(long.expires).toBe(new Date(clock.getTime() + 30 * DAY * 1000).toISOString());
    expect(record).toMatchObject({ status: 'active', vouchedBy: 'application', appType: 'web', authenticatedAt: clock, createdAt: clock, expiresAt: new Date(long.expires) });
    // No refresh token was made for it: the application renews it through short sessions.
    expect(await env.store.db.collection('refresh_tokens').countDocuments({ sessionId: long.longSessionId })).toBe(0);
    // It is listed and read like any session.
    expect((await rpc.getSession({ longSessionId: long.longSessionId }, basic(A))).longSession).toEqual(long);
    expect((await rpc.listUserSessions({ userId: user._id }, basic(A))).longSessions.map((l) => l.longSessionId)).toEqual([long.longSessionId]);
  });

  it('under refresh rotation "keep" lasts at most the maximum lifetime', async () => {
    const { project } = await createProject(deps, { name: 'App sessions keep', rpId: 'example.com', origins: ['https://app.example.com'] });
    await updateSessionSettings(deps, project._id, { refreshTokenRotation: 'keep' });
    const user = await newUser(project._id, 'kept@example.com');
    const long = await createLong(project._id, user._id, 'kept@example.com');
    expect(long.expires).toBe(new Date(clock.getTime() + 7 * DAY * 1000).toISOString());
  });

  it('refuses bad input with 400 naming the field, another project\'s user with 404, a disabled user with 409; writes nothing', async () => {
    const user = await newUser(A, 'refused@example.com');
    await newUser(A, 'someone-else@example.com');
    const before = await env.store.db.collection('sessions').countDocuments({ userId: user._id });
    for (const [req, field] of [
      [{ userId: user._id, appType: 'desktop', identifierValue: 'refused@example.com' }, 'appType'],
      [{ userId: user._id, appType: 'web', identifierValue: '' }, 'identifierValue'],
      [{ userId: user._id, appType: 'web', identifierValue: 'someone-else@example.com' }, 'identifierValue'],
      [{ userId: user._id, appType: 'web', identifierValue: 'not an email' }, 'identifierValue'],
      [{ userId: 'usr-x', appType: 'web', identifierValue: 'refused@example.com' }, 'userID'],
    ] as const) {
      expect(await errorOf(rpc.createUserSession(req, basic(A))), JSON.stringify(req)).toMatchObject({ code: Code.InvalidArgument, fields: [field] });
    }
    expect(await errorOf(rpc.createUserSession({ userId: user._id, appType: 'web', identifierValue: 'refused@example.com' }, basic(B)))).toMatchObject({ code: Code.NotFound, type: 'user_not_found' });
    await usersRpc.updateUser({ userId: user._id, status: 'disabled' }, basic(A));
    expect(await errorOf(rpc.createUserSession({ userId: user._id, appType: 'native', identifierValue: 'refused@example.com' }, basic(A)))).toMatchObject({
      code: Code.FailedPrecondition,
      type: 'user_disabled',
    });
    expect(await env.store.db.collection('sessions').countDocuments({ userId: user._id })).toBe(before);
  });
});

describe('POST /v2/users/{userID}/longSessions/{longSessionID}/shortSessions', () => {
  it('issues a session token with the documented claims; auth_time is the creation; it passes /v2/me\'s checks', async () => {
    const user = await newUser(A, 'short@example.com');
    const long = await createLong(A, user._id, 'short@example.com');
    const createdAt = Math.floor(clock.getTime() / 1000);
    advance(60);
    const short = await rpc.createShortSession({ userId: user._id, longSessionId: long.longSessionId, appType: 'web', issuer: issuerOf(A) }, basic(A));
    const claims = await verify(A, short.value);
    const iat = Math.floor(clock.getTime() / 1000);
    expect(claims).toEqual({
      iss: issuerOf(A),
      aud: A,
      iat,
      exp: iat + 900,
      kind: 'session',
      sub: user._id,
      sid: long.longSessionId,
      auth_time: createdAt,
      name: 'App User',
      orig: 'short@example.com',
      email: 'short@example.com',
      email_verified: true,
      identifiers: [{ type: 'email', value: 'short@example.com', status: 'verified' }],
    });
    // /v2/me/* accept it; the sensitive ones within the re-authentication window from the creation (900 s).
    const session = await requireActiveSession(deps, { projectId: A, sessionId: long.longSessionId, userId: user._id });
    const project = await getProject(deps, A);
    expect(() => requireRecentAuthentication(project, session, clock)).not.toThrow();
    advance(900);
    const later = await rpc.createShortSession({ userId: user._id, longSessionId: long.longSessionId, appType: 'web', issuer: issuerOf(A) }, basic(A));
    expect((await verify(A, later.value)).auth_time).toBe(createdAt);
    expect(() => requireRecentAuthentication(project, session, clock)).toThrow(/recent sign-in/);
    // Each short session is a use of the session.
    expect((await sessionRecord(long.longSessionId))?.lastUsedAt).toEqual(clock);
  });

  it('works for a session started by a sign-in too (its auth_time stays the sign-in)', async () => {
    const user = await newUser(A, 'signed-in@example.com');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    const signedInAt = Math.floor(clock.getTime() / 1000);
    advance(120);
    const short = await rpc.createShortSession({ userId: user._id, longSessionId: s.sessionId, appType: 'empty', issuer: issuerOf(A) }, basic(A));
    expect(await verify(A, short.value)).toMatchObject({ sid: s.sessionId, auth_time: signedInAt });
  });

  it('refuses a session that is revoked, logged out, expired or idle with 409 session_ended', async () => {
    const user = await newUser(A, 'ended@example.com');
    const ask = (longSessionId: string, projectId = A) => rpc.createShortSession({ userId: user._id, longSessionId, appType: 'web', issuer: issuerOf(projectId) }, basic(projectId));
    const revoked = await createLong(A, user._id, 'ended@example.com');
    await rpc.updateUserSession({ userId: user._id, longSessionId: revoked.longSessionId, status: 'revoked' }, basic(A));
    expect(await errorOf(ask(revoked.longSessionId))).toMatchObject({ code: Code.FailedPrecondition, type: 'session_ended' });
    const loggedOut = await createLong(A, user._id, 'ended@example.com');
    await endSession(deps, { projectId: A, sessionId: loggedOut.longSessionId });
    expect(await errorOf(ask(loggedOut.longSessionId))).toMatchObject({ code: Code.FailedPrecondition, type: 'session_ended' });
    const expired = await createLong(A, user._id, 'ended@example.com');
    advance(30 * DAY);
    expect(await errorOf(ask(expired.longSessionId))).toMatchObject({ code: Code.FailedPrecondition, type: 'session_ended' });
    // None of them came back to life.
    for (const [id, status] of [
      [revoked.longSessionId, 'revoked'],
      [loggedOut.longSessionId, 'logged_out'],
      [expired.longSessionId, 'expired'],
    ]) {
      expect((await rpc.getSession({ longSessionId: id! }, basic(A))).longSession?.status).toBe(status);
    }

    // Under "keep": unused for the idle timeout, it is marked inactivity_reached and stays refused.
    const { project } = await createProject(deps, { name: 'App sessions idle', rpId: 'example.com', origins: ['https://app.example.com'] });
    await updateSessionSettings(deps, project._id, { refreshTokenRotation: 'keep' });
    const kept = await newUser(project._id, 'idle@example.com');
    const idle = await createLong(project._id, kept._id, 'idle@example.com');
    const askKept = () => rpc.createShortSession({ userId: kept._id, longSessionId: idle.longSessionId, appType: 'web', issuer: issuerOf(project._id) }, basic(project._id));
    advance(2 * DAY);
    await askKept();
    // The use above reset the idle clock; three days without one end it.
    advance(3 * DAY + 1);
    expect(await errorOf(askKept())).toMatchObject({ code: Code.FailedPrecondition, type: 'session_ended' });
    expect(await sessionRecord(idle.longSessionId)).toMatchObject({ status: 'revoked', revokeReason: 'inactivity' });
  });

  it('refuses bad input with 400 naming the field, another project\'s or user\'s session with 404, a disabled user with 409', async () => {
    const user = await newUser(A, 'short-refused@example.com');
    const other = await newUser(A, 'short-other@example.com');
    const long = await createLong(A, user._id, 'short-refused@example.com');
    const ok = { userId: user._id, longSessionId: long.longSessionId, appType: 'web', issuer: issuerOf(A) };
    for (const [req, field] of [
      [{ ...ok, appType: '' }, 'appType'],
      [{ ...ok, issuer: '' }, 'issuer'],
      [{ ...ok, issuer: 'https://evil.example.com' }, 'issuer'],
      [{ ...ok, longSessionId: 'ses-abc' }, 'longSessionID'],
    ] as const) {
      expect(await errorOf(rpc.createShortSession(req, basic(A))), JSON.stringify(req)).toMatchObject({ code: Code.InvalidArgument, fields: [field] });
    }
    expect(await errorOf(rpc.createShortSession({ ...ok, issuer: issuerOf(B) }, basic(B)))).toMatchObject({ code: Code.NotFound, type: 'session_not_found' });
    expect(await errorOf(rpc.createShortSession({ ...ok, userId: other._id }, basic(A)))).toMatchObject({ code: Code.NotFound, type: 'session_not_found' });
    expect((await sessionRecord(long.longSessionId))?.lastUsedAt).toEqual((await sessionRecord(long.longSessionId))?.createdAt);

    // A disabled user gets none (disabling ended the session; re-enabling does not revive it).
    await usersRpc.updateUser({ userId: user._id, status: 'disabled' }, basic(A));
    expect(await errorOf(rpc.createShortSession(ok, basic(A)))).toMatchObject({ code: Code.FailedPrecondition, type: 'user_disabled' });
    await usersRpc.updateUser({ userId: user._id, status: 'active' }, basic(A));
    expect(await errorOf(rpc.createShortSession(ok, basic(A)))).toMatchObject({ code: Code.FailedPrecondition, type: 'session_ended' });
  });

  it('a session that escaped the disabling (created concurrently) ends at its first short session', async () => {
    const user = await newUser(A, 'escaped@example.com');
    const long = await createLong(A, user._id, 'escaped@example.com');
    // The user is disabled behind the session store's back, as if the revocation had missed this session.
    await env.store.db.collection('users').updateOne({ _id: user._id } as never, { $set: { status: 'disabled' } });
    expect(await errorOf(rpc.createShortSession({ userId: user._id, longSessionId: long.longSessionId, appType: 'web', issuer: issuerOf(A) }, basic(A)))).toMatchObject({
      code: Code.FailedPrecondition,
      type: 'user_disabled',
    });
    expect(await sessionRecord(long.longSessionId)).toMatchObject({ status: 'revoked', revokeReason: 'user_unavailable' });
  });
});
