/**
 * Sessions in memory: session tokens (claims, lifetimes), refresh-token rotation and reuse
 * detection, logout, expiry under a controlled clock, project scoping, and signing-key rotation.
 */
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { createHash } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { SessionService } from '../../../gen/passkeyauth/connect/v1/session_service_pb.js';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { HEADERS } from '../../runtime/context.js';
import { DomainError } from '../../runtime/errors.js';
import { toConnectError } from '../../runtime/interceptors.js';
import { parseProjectCommand, UsageError } from '../src/cli/projectAdmin.js';
import { createIdentifier } from '../src/users/domain/createIdentifier.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { createUser } from '../src/users/domain/createUser.js';
import { issueSession } from '../src/connect-flows/domain/issueSession.js';
import { getProject } from '../src/projects/domain/getProject.js';
import { listPublicJwks } from '../src/projects/domain/signingKeys.js';
import { KEY_ACTIVATION_DELAY_SECONDS, keyRetirementSeconds, rotateSigningKey } from '../src/projects/domain/rotateSigningKey.js';
import { endSession } from '../src/sessions/domain/endSession.js';
import { refreshSession } from '../src/sessions/domain/refreshSession.js';
import { requireActiveRefreshToken } from '../src/sessions/domain/requireActiveRefreshToken.js';
import { requireActiveSession } from '../src/sessions/domain/requireActiveSession.js';
import { startSession } from '../src/sessions/domain/startSession.js';
import { signToken } from '../src/projects/domain/signToken.js';
import { updateSessionSettings } from '../src/projects/domain/updateSessionSettings.js';
import { verifyProjectToken } from '../src/projects/domain/verifyProjectToken.js';
import type { ConnectServiceDeps } from '../src/server.js';
import type { RefreshTokenRecord, SessionRecord } from '../src/sessions/store/sessions.js';
import { inMemoryTransport, startTestEnv, type TestEnv } from './support.js';

const REFRESH_TOKEN = /^rt_[A-Za-z0-9_-]{43}$/;
const DAY = 86_400;

let env: TestEnv;
/** The clock every call here reads; tests move it. */
let clock: Date;
let deps: ConnectServiceDeps;
let sessionsRpc: Client<typeof SessionService>;
let projectsRpc: Client<typeof ProjectService>;
let usersRpc: Client<typeof UserService>;
let A: string;
let B: string;

beforeAll(async () => {
  env = await startTestEnv({ frontendApiUrl: 'https://{projectID}.auth.example.com', backendApiUrl: 'https://api.example.com' });
  clock = new Date();
  deps = { ...env.deps, now: () => clock };
  const transport = inMemoryTransport(deps);
  sessionsRpc = createClient(SessionService, transport);
  projectsRpc = createClient(ProjectService, transport);
  usersRpc = createClient(UserService, transport);
  A = (await createProject(deps, { name: 'Sessions A', rpId: 'example.com', origins: ['https://app.example.com'] })).project._id;
  B = (await createProject(deps, { name: 'Sessions B', rpId: 'example.com', origins: ['https://app.example.com'] })).project._id;
});
afterAll(() => env?.close());
beforeEach(() => {
  clock = new Date();
});

const advance = (seconds: number) => (clock = new Date(clock.getTime() + seconds * 1000));
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

async function newUser(projectId: string, fullName: string | undefined, identifiers: Array<{ type: string; value: string }> = []) {
  const user = await createUser(deps, { projectId, ...(fullName !== undefined ? { fullName } : {}), status: 'active' });
  for (const i of identifiers) await createIdentifier(deps, { projectId, userId: user._id, ...i, status: 'verified' });
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

async function errorOf(p: Promise<unknown>): Promise<{ code: Code; type: string }> {
  try {
    await p;
  } catch (err) {
    // Domain calls throw DomainErrors, RPCs ConnectErrors: both are read as the client would see them.
    const ce = err instanceof DomainError ? toConnectError(err) : ConnectError.from(err);
    return { code: ce.code, type: ce.findDetails(ErrorInfoSchema)[0]?.type ?? '' };
  }
  throw new Error('expected a failure');
}

const sessionRecord = (id: string) => env.store.db.collection<SessionRecord>('sessions').findOne({ _id: id });

/** Call options as the gateway sets them for a refresh token or a session token. */
const withRefresh = (projectId: string, token: string) => ({ headers: { [HEADERS.projectId]: projectId, [HEADERS.tokenKind]: 'refresh', [HEADERS.refreshToken]: token } });
const withSession = (projectId: string, userId: string, sessionId: string) => ({
  headers: { [HEADERS.projectId]: projectId, [HEADERS.tokenKind]: 'session', [HEADERS.userId]: userId, [HEADERS.sessionId]: sessionId },
});

describe('startSession', () => {
  it('issues a session token with exactly the documented claims and a refresh token stored only hashed', async () => {
    const user = await newUser(A, 'Ada Lovelace', [
      { type: 'email', value: 'Ada@Example.com' },
      { type: 'username', value: 'ada' },
    ]);
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    expect(s.sessionId).toMatch(/^ses-[0-9]{20}$/);
    expect(s.refreshToken).toMatch(REFRESH_TOKEN);

    expect(decodeProtectedHeader(s.sessionToken)).toMatchObject({ alg: 'ES256', typ: 'JWT' });
    const claims = await verify(A, s.sessionToken);
    const iat = Math.floor(clock.getTime() / 1000);
    expect(claims).toEqual({
      iss: `https://${A}.auth.example.com`,
      aud: A,
      iat,
      exp: iat + 900,
      kind: 'session',
      sub: user._id,
      sid: s.sessionId,
      auth_time: iat,
      name: 'Ada Lovelace',
      identifiers: expect.arrayContaining([
        { type: 'email', value: 'ada@example.com', status: 'verified' },
        { type: 'username', value: 'ada', status: 'verified' },
      ]),
      email: 'ada@example.com',
      email_verified: true,
      // The first identifier's value.
      orig: (claims.identifiers as { value: string }[])[0]!.value,
    });
    expect(['ada@example.com', 'ada']).toContain(claims.orig);
    expect(claims.identifiers).toHaveLength(2);
    expect(s.expiresAt).toBe(iat + 900);

    const session = await sessionRecord(s.sessionId);
    expect(session).toMatchObject({ projectId: A, userId: user._id, status: 'active', expiresAt: new Date(clock.getTime() + 30 * DAY * 1000) });
    const stored = await env.store.db.collection<RefreshTokenRecord>('refresh_tokens').find({ sessionId: s.sessionId }).toArray();
    expect(stored).toEqual([expect.objectContaining({ _id: sha256(s.refreshToken!), projectId: A, status: 'active', expiresAt: session!.expiresAt })]);
    expect(JSON.stringify(stored)).not.toContain(s.refreshToken!.slice(3));
  });

  it('names the user by full name, else by the first identifier, else ""', async () => {
    const named = await newUser(A, undefined, [{ type: 'phone', value: '+15550001111' }]);
    const anonymous = await newUser(A, undefined);
    const a = await startSession(deps, { projectId: A, userId: named._id, withRefreshToken: false });
    const b = await startSession(deps, { projectId: A, userId: anonymous._id, withRefreshToken: false });
    expect(await verify(A, a.sessionToken)).toMatchObject({ name: '+15550001111', identifiers: [{ type: 'phone', value: '+15550001111', status: 'verified' }] });
    expect(await verify(A, b.sessionToken)).toMatchObject({ name: '', identifiers: [] });
    expect(a.refreshToken).toBeUndefined();
  });

  it('states only proven identifiers as facts: pending ones are listed with their status, never as email, phone_number, orig or name', async () => {
    const user = await createUser(deps, { projectId: A, status: 'active' });
    // Self-asserted at sign-up (pending), then a proven phone number and a primary username.
    await createIdentifier(deps, { projectId: A, userId: user._id, type: 'email', value: 'ceo@victim-corp.example', status: 'pending' });
    await createIdentifier(deps, { projectId: A, userId: user._id, type: 'phone', value: '+15550002222', status: 'verified' });
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: false, name: 'ceo@victim-corp.example' });
    const claims = await verify(A, s.sessionToken);
    expect(claims).not.toHaveProperty('email');
    expect(claims).toMatchObject({
      email_verified: false,
      phone_number: '+15550002222',
      phone_number_verified: true,
      // A connect login's preferred name is an unproven value here: the first proven identifier instead.
      name: '+15550002222',
      orig: '+15550002222',
    });
    // Both identifiers were created at the test clock's one instant, so their order is the IDs'.
    expect((claims.identifiers as { type: string }[]).slice().sort((x, y) => x.type.localeCompare(y.type))).toEqual([
      { type: 'email', value: 'ceo@victim-corp.example', status: 'pending' },
      { type: 'phone', value: '+15550002222', status: 'verified' },
    ]);

    // Nothing proven at all: no email, no phone_number, orig and name empty.
    const unproven = await createUser(deps, { projectId: A, status: 'active' });
    await createIdentifier(deps, { projectId: A, userId: unproven._id, type: 'email', value: 'someone@victim-corp.example', status: 'pending' });
    const u = await verify(A, (await startSession(deps, { projectId: A, userId: unproven._id, withRefreshToken: false })).sessionToken);
    expect(u).toMatchObject({ name: '', orig: '', email_verified: false, identifiers: [{ type: 'email', value: 'someone@victim-corp.example', status: 'pending' }] });
    expect(u).not.toHaveProperty('email');
    expect(u).not.toHaveProperty('phone_number');
    expect(u).not.toHaveProperty('phone_number_verified');

    // Once proven (here: primary), the next token states it.
    const [pending] = (await deps.identifiers.listForUser(A, unproven._id));
    await deps.identifiers.updateStatus(A, unproven._id, pending!._id, { status: 'primary', claimed: true }, clock, { from: 'pending' });
    const p = await verify(A, (await startSession(deps, { projectId: A, userId: unproven._id, withRefreshToken: false })).sessionToken);
    expect(p).toMatchObject({ email: 'someone@victim-corp.example', email_verified: true, name: 'someone@victim-corp.example', orig: 'someone@victim-corp.example' });
  });

  it('without a refresh token the session ends with its token', async () => {
    const user = await newUser(A, 'Short Lived');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: false });
    expect((await sessionRecord(s.sessionId))?.expiresAt).toEqual(new Date(clock.getTime() + 900_000));
    expect(await env.store.db.collection('refresh_tokens').countDocuments({ sessionId: s.sessionId })).toBe(0);
  });

  it('refuses a user of another project', async () => {
    const user = await newUser(A, 'Elsewhere');
    expect(await errorOf(startSession(deps, { projectId: B, userId: user._id, withRefreshToken: true }))).toMatchObject({ type: 'user_not_found' });
  });

  it('F9 (issueSession) starts a session too, so its token carries a sid', async () => {
    const user = await newUser(A, 'Connect Login');
    const token = await issueSession(deps, A, { id: user._id, name: 'Connect Login' });
    const claims = await verify(A, token);
    expect(claims).toMatchObject({ kind: 'session', sub: user._id, name: 'Connect Login', sid: expect.stringMatching(/^ses-/) });
    expect(claims.exp! - claims.iat!).toBe(900);
    const session = await requireActiveSession(deps, { projectId: A, sessionId: claims.sid as string, userId: user._id });
    expect(session.status).toBe('active');
  });
});

describe('refreshSession', () => {
  it('rotates the refresh token on every use and carries fresh claims', async () => {
    const user = await newUser(A, 'Grace Hopper', [{ type: 'email', value: 'grace@example.com' }]);
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    advance(600);
    await createIdentifier(deps, { projectId: A, userId: user._id, type: 'username', value: 'grace', status: 'verified' });
    const r1 = await refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! });
    expect(r1.refreshToken).toMatch(REFRESH_TOKEN);
    expect(r1.refreshToken).not.toBe(s.refreshToken);
    const claims = await verify(A, r1.sessionToken);
    expect(claims).toMatchObject({ sub: user._id, sid: s.sessionId, name: 'Grace Hopper' });
    expect(claims.identifiers).toEqual(expect.arrayContaining([{ type: 'email', value: 'grace@example.com', status: 'verified' }, { type: 'username', value: 'grace', status: 'verified' }]));
    expect(r1.expiresAt).toBe(claims.exp);
    expect((await sessionRecord(s.sessionId))?.lastUsedAt).toEqual(clock);

    const r2 = await refreshSession(deps, { projectId: A, refreshToken: r1.refreshToken });
    expect(r2.refreshToken).not.toBe(r1.refreshToken);
    expect((await verify(A, r2.sessionToken)).sid).toBe(s.sessionId);
    const statuses = await env.store.db.collection<RefreshTokenRecord>('refresh_tokens').find({ sessionId: s.sessionId }).sort({ createdAt: 1 }).toArray();
    expect(statuses.map((t) => t.status).sort()).toEqual(['active', 'rotated', 'rotated']);
  });

  it('reuse of a rotated token refuses it and revokes the whole session', async () => {
    const user = await newUser(A, 'Reuse Victim');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    const fresh = await refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! });

    // The old token is refused from now on, and presenting it ends the session.
    expect(await errorOf(refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! }))).toEqual({ code: Code.Unauthenticated, type: 'refresh_token_reused' });
    expect(await sessionRecord(s.sessionId)).toMatchObject({ status: 'revoked', revokeReason: 'refresh_token_reuse', revokedAt: clock });
    // The newest token (maybe the thief's) fails too, and so do the session's tokens on /v2/me/*.
    expect(await errorOf(refreshSession(deps, { projectId: A, refreshToken: fresh.refreshToken }))).toEqual({ code: Code.Unauthenticated, type: 'session_ended' });
    expect(await errorOf(requireActiveSession(deps, { projectId: A, sessionId: s.sessionId, userId: user._id }))).toMatchObject({ type: 'session_ended' });
    // Reusing again is still refused.
    expect(await errorOf(refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! }))).toMatchObject({ type: 'refresh_token_reused' });
  });

  it('of two concurrent refreshes with one token, exactly one wins', async () => {
    const user = await newUser(A, 'Racer');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    const results = await Promise.allSettled([1, 2, 3].map(() => refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('refuses unknown tokens and tokens of another project (without touching their session)', async () => {
    expect(await errorOf(refreshSession(deps, { projectId: A, refreshToken: `rt_${'A'.repeat(43)}` }))).toEqual({ code: Code.Unauthenticated, type: 'invalid_refresh_token' });
    const user = await newUser(A, 'Tenant A');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    expect(await errorOf(refreshSession(deps, { projectId: B, refreshToken: s.refreshToken! }))).toMatchObject({ type: 'invalid_refresh_token' });
    await endSession(deps, { projectId: B, refreshToken: s.refreshToken! });
    await endSession(deps, { projectId: B, sessionId: s.sessionId });
    expect(await errorOf(requireActiveSession(deps, { projectId: B, sessionId: s.sessionId, userId: user._id }))).toMatchObject({ type: 'session_ended' });
    // Still usable in its own project: the foreign attempts neither spent nor revoked it.
    await refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! });
    expect((await sessionRecord(s.sessionId))?.status).toBe('active');
  });

  it('ends at the session end: tokens never outlive it, and past it nothing refreshes', async () => {
    const user = await newUser(A, 'Expiring');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    const end = (await sessionRecord(s.sessionId))!.expiresAt;

    // Past the session token's expiry, the session itself is alive.
    advance(901);
    await expect(verify(A, s.sessionToken)).rejects.toThrow(/exp/);
    await requireActiveSession(deps, { projectId: A, sessionId: s.sessionId, userId: user._id });

    clock = new Date(end.getTime() - 100_000);
    const late = await refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! });
    const claims = await verify(A, late.sessionToken);
    expect(claims.exp! - claims.iat!).toBe(100);

    clock = new Date(end.getTime() + 1000);
    expect(await errorOf(refreshSession(deps, { projectId: A, refreshToken: late.refreshToken }))).toEqual({ code: Code.Unauthenticated, type: 'session_ended' });
    expect(await errorOf(requireActiveSession(deps, { projectId: A, sessionId: s.sessionId, userId: user._id }))).toMatchObject({ type: 'session_ended' });
  });

  it('ends the session of a user deleted or disabled meanwhile', async () => {
    const user = await newUser(A, 'Leaving');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    await deps.users.updateStatus(A, user._id, 'disabled', clock);
    expect(await errorOf(refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! }))).toMatchObject({ type: 'session_ended' });
    expect(await sessionRecord(s.sessionId)).toMatchObject({ status: 'revoked', revokeReason: 'user_unavailable' });
  });
});

describe('requireActiveSession', () => {
  it('refuses a session of another user, a missing sid and an unknown session', async () => {
    const user = await newUser(A, 'Owner');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: false });
    expect(await requireActiveSession(deps, { projectId: A, sessionId: s.sessionId, userId: user._id })).toMatchObject({ _id: s.sessionId, userId: user._id });
    for (const input of [
      { projectId: A, sessionId: s.sessionId, userId: 'usr-1' },
      { projectId: A, sessionId: '', userId: user._id },
      { projectId: A, sessionId: 'ses-1', userId: user._id },
    ]) {
      expect(await errorOf(requireActiveSession(deps, input))).toEqual({ code: Code.Unauthenticated, type: 'session_ended' });
    }
  });
});

describe('requireActiveRefreshToken (/v2/me/* with a refresh token)', () => {
  it('gives the session of the current refresh token; refuses an unknown, other project\'s or ended one', async () => {
    const user = await newUser(A, 'Bearer Refresh');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    expect(await requireActiveRefreshToken(deps, { projectId: A, refreshToken: s.refreshToken! })).toMatchObject({ _id: s.sessionId, userId: user._id });
    const r = await refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! });
    expect(await requireActiveRefreshToken(deps, { projectId: A, refreshToken: r.refreshToken })).toMatchObject({ _id: s.sessionId });
    expect(await errorOf(requireActiveRefreshToken(deps, { projectId: B, refreshToken: r.refreshToken }))).toMatchObject({ type: 'invalid_refresh_token' });
    expect(await errorOf(requireActiveRefreshToken(deps, { projectId: A, refreshToken: `rt_${'q'.repeat(43)}` }))).toMatchObject({ type: 'invalid_refresh_token' });
    await endSession(deps, { projectId: A, sessionId: s.sessionId });
    expect(await errorOf(requireActiveRefreshToken(deps, { projectId: A, refreshToken: r.refreshToken }))).toMatchObject({ type: 'session_ended' });
  });

  it('treats a traded-in (spent) token as a reuse, as /v2/me/refresh does: the session ends for every holder', async () => {
    // Formerly refused without ending the session; a spent token on /v2/me/* proves a copy as much as on a refresh.
    const user = await newUser(A, 'Bearer Reuse');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    const r = await refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! });
    expect(await errorOf(requireActiveRefreshToken(deps, { projectId: A, refreshToken: s.refreshToken! }))).toEqual({ code: Code.Unauthenticated, type: 'refresh_token_reused' });
    expect(await sessionRecord(s.sessionId)).toMatchObject({ status: 'revoked', revokeReason: 'refresh_token_reuse' });
    // The newest token (the owner's, or the thief's) is dead too.
    expect(await errorOf(requireActiveRefreshToken(deps, { projectId: A, refreshToken: r.refreshToken }))).toMatchObject({ type: 'session_ended' });
    expect(await errorOf(refreshSession(deps, { projectId: A, refreshToken: r.refreshToken }))).toMatchObject({ type: 'session_ended' });
  });
});

describe('authentication time (auth_time)', () => {
  it('is the sign-in time, in the session record and the token, and a refresh does not move it', async () => {
    const user = await newUser(A, 'Auth Time');
    const signedInAt = Math.floor(clock.getTime() / 1000);
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    expect((await sessionRecord(s.sessionId))?.authenticatedAt).toEqual(clock);
    expect((await verify(A, s.sessionToken)).auth_time).toBe(signedInAt);
    advance(1200);
    const r1 = await refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! });
    advance(1200);
    const r2 = await refreshSession(deps, { projectId: A, refreshToken: r1.refreshToken });
    const claims = await verify(A, r2.sessionToken);
    expect({ auth_time: claims.auth_time, iat: claims.iat }).toEqual({ auth_time: signedInAt, iat: signedInAt + 2400 });
  });

  it('counts from the start for sessions recorded before it existed', async () => {
    const user = await newUser(A, 'Old Session');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    await env.store.db.collection<SessionRecord>('sessions').updateOne({ _id: s.sessionId }, { $unset: { authenticatedAt: '' } });
    advance(60);
    const r = await refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! });
    expect((await verify(A, r.sessionToken)).auth_time).toBe(Math.floor((clock.getTime() - 60_000) / 1000));
  });
});

describe('refresh rotation "keep": idle timeout and maximum lifetime', () => {
  async function keptProject(settings: Parameters<typeof updateSessionSettings>[2] = {}) {
    const { project } = await createProject(deps, { name: `Keep ${Math.random()}`, rpId: 'example.com', origins: ['https://app.example.com'] });
    await updateSessionSettings(deps, project._id, { refreshTokenRotation: 'keep', ...settings });
    return project._id;
  }

  it('ends a session unused for the idle timeout (default 3 days); a refresh or a /v2/me call with the token counts as use', async () => {
    const P = await keptProject();
    const user = await newUser(P, 'Idle');
    const s = await startSession(deps, { projectId: P, userId: user._id, withRefreshToken: true });
    advance(DAY);
    await refreshSession(deps, { projectId: P, refreshToken: s.refreshToken! });
    advance(2 * DAY);
    // /v2/me/* with the kept token records a use as well.
    await requireActiveRefreshToken(deps, { projectId: P, refreshToken: s.refreshToken! });
    expect((await sessionRecord(s.sessionId))?.lastUsedAt).toEqual(clock);
    // 6 days after sign-in, 3 after the last use.
    advance(3 * DAY + 1);
    expect(await errorOf(refreshSession(deps, { projectId: P, refreshToken: s.refreshToken! }))).toEqual({ code: Code.Unauthenticated, type: 'session_ended' });
    expect(await sessionRecord(s.sessionId)).toMatchObject({ status: 'revoked', revokeReason: 'inactivity' });
    // Nothing revives it, not even a later use within what would be a fresh idle window.
    expect(await errorOf(requireActiveRefreshToken(deps, { projectId: P, refreshToken: s.refreshToken! }))).toMatchObject({ type: 'session_ended' });

    const idleOnMe = await startSession(deps, { projectId: P, userId: user._id, withRefreshToken: true });
    advance(3 * DAY + 1);
    expect(await errorOf(requireActiveRefreshToken(deps, { projectId: P, refreshToken: idleOnMe.refreshToken! }))).toMatchObject({ type: 'session_ended' });
    expect(await sessionRecord(idleOnMe.sessionId)).toMatchObject({ status: 'revoked', revokeReason: 'inactivity' });
  });

  it('ends every session at the maximum lifetime (default 7 days) however often it is used', async () => {
    const P = await keptProject();
    const user = await newUser(P, 'Max Lifetime');
    const s = await startSession(deps, { projectId: P, userId: user._id, withRefreshToken: true });
    expect((await sessionRecord(s.sessionId))?.expiresAt).toEqual(new Date(clock.getTime() + 7 * DAY * 1000));
    for (let day = 1; day < 7; day++) {
      advance(DAY);
      await refreshSession(deps, { projectId: P, refreshToken: s.refreshToken! });
    }
    advance(DAY);
    expect(await errorOf(refreshSession(deps, { projectId: P, refreshToken: s.refreshToken! }))).toMatchObject({ type: 'session_ended' });

    // A session from before the switch to "keep" (30 days long) ends at the maximum lifetime too.
    const { project: rotating } = await createProject(deps, { name: 'Switch to keep', rpId: 'example.com', origins: ['https://app.example.com'] });
    const u2 = await newUser(rotating._id, 'Switched');
    const old = await startSession(deps, { projectId: rotating._id, userId: u2._id, withRefreshToken: true });
    await updateSessionSettings(deps, rotating._id, { refreshTokenRotation: 'keep', keepIdleTimeoutSeconds: 30 * DAY });
    advance(7 * DAY + 1);
    expect(await errorOf(refreshSession(deps, { projectId: rotating._id, refreshToken: old.refreshToken! }))).toMatchObject({ type: 'session_ended' });
  });

  it('honours the project\'s own limits and refuses them out of range', async () => {
    const P = await keptProject({ keepIdleTimeoutSeconds: 600, keepMaxLifetimeSeconds: 3600 });
    const user = await newUser(P, 'Short');
    const s = await startSession(deps, { projectId: P, userId: user._id, withRefreshToken: true });
    expect((await sessionRecord(s.sessionId))?.expiresAt).toEqual(new Date(clock.getTime() + 3_600_000));
    advance(599);
    await refreshSession(deps, { projectId: P, refreshToken: s.refreshToken! });
    advance(601);
    expect(await errorOf(refreshSession(deps, { projectId: P, refreshToken: s.refreshToken! }))).toMatchObject({ type: 'session_ended' });
    for (const bad of [{ keepIdleTimeoutSeconds: 299 }, { keepIdleTimeoutSeconds: 30 * DAY + 1 }, { keepMaxLifetimeSeconds: 3599 }, { keepMaxLifetimeSeconds: 90 * DAY + 1 }, { reauthWindowSeconds: 59 }, { reauthWindowSeconds: DAY + 1 }]) {
      expect(await errorOf(updateSessionSettings(deps, P, bad))).toMatchObject({ code: Code.InvalidArgument, type: 'validation_error' });
    }
  });

  it('does not apply under "rotate": a rotating session lives its refresh lifetime', async () => {
    const user = await newUser(A, 'Rotating Idle');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    advance(10 * DAY);
    expect((await refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! })).refreshToken).toMatch(REFRESH_TOKEN);
  });
});

describe('SessionService (as the gateway calls it)', () => {
  it('Refresh answers shortSession and longSession', async () => {
    const user = await newUser(A, 'Rpc Refresh');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    const r = await sessionsRpc.refresh({}, withRefresh(A, s.refreshToken!));
    expect(r.longSession).toMatch(REFRESH_TOKEN);
    expect(await verify(A, r.shortSession)).toMatchObject({ sub: user._id, sid: s.sessionId });
    // The same under web-core 3.x's names.
    expect({ sessionToken: r.sessionToken, refreshToken: r.refreshToken }).toEqual({ sessionToken: r.shortSession, refreshToken: r.longSession });
    expect(await errorOf(sessionsRpc.refresh({}, withRefresh(A, r.longSession.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))))).toMatchObject({ code: Code.Unauthenticated });
    expect(await errorOf(sessionsRpc.refresh({}, { headers: { [HEADERS.projectId]: A, [HEADERS.tokenKind]: 'session' } }))).toMatchObject({ code: Code.Unauthenticated });
  });

  it('Logout with a session token ends the session it names (idempotent)', async () => {
    const user = await newUser(A, 'Rpc Logout');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    await sessionsRpc.logout({}, withSession(A, user._id, s.sessionId));
    expect(await sessionRecord(s.sessionId)).toMatchObject({ status: 'revoked', revokeReason: 'logout' });
    expect(await errorOf(sessionsRpc.refresh({}, withRefresh(A, s.refreshToken!)))).toMatchObject({ code: Code.Unauthenticated });
    expect(await errorOf(requireActiveSession(deps, { projectId: A, sessionId: s.sessionId, userId: user._id }))).toMatchObject({ type: 'session_ended' });
    await sessionsRpc.logout({}, withSession(A, user._id, s.sessionId));
    await sessionsRpc.logout({}, withSession(A, user._id, 'ses-1'));
  });

  it('Logout with a refresh token ends its session', async () => {
    const user = await newUser(A, 'Rpc Logout Refresh');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    await sessionsRpc.logout({}, withRefresh(A, s.refreshToken!));
    expect(await sessionRecord(s.sessionId)).toMatchObject({ status: 'revoked', revokeReason: 'logout' });
    expect(await errorOf(sessionsRpc.refresh({}, withRefresh(A, s.refreshToken!)))).toMatchObject({ type: 'session_ended' });
    await sessionsRpc.logout({}, withRefresh(A, `rt_${'x'.repeat(43)}`));
  });
});

describe('backend API: a user\'s long sessions', () => {
  const basic = (projectId: string) => ({ headers: { [HEADERS.projectId]: projectId } });

  it('lists them newest first with the reference\'s fields and statuses, one page at a time', async () => {
    const user = await newUser(A, 'Listed', [{ type: 'email', value: 'listed@example.com' }]);
    const loggedOut = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    await endSession(deps, { projectId: A, sessionId: loggedOut.sessionId });
    advance(1);
    const reused = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    await refreshSession(deps, { projectId: A, refreshToken: reused.refreshToken! });
    await errorOf(refreshSession(deps, { projectId: A, refreshToken: reused.refreshToken! }));
    advance(1);
    const live = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    const list = await sessionsRpc.listUserSessions({ userId: user._id }, basic(A));
    expect(list.paging).toMatchObject({ page: 1, totalPages: 1, totalItems: 3 });
    expect(list.longSessions.map((l) => ({ id: l.longSessionId, status: l.status }))).toEqual([
      { id: live.sessionId, status: 'active' },
      { id: reused.sessionId, status: 'revoked' },
      { id: loggedOut.sessionId, status: 'logged_out' },
    ]);
    const record = await sessionRecord(live.sessionId);
    expect(list.longSessions[0]).toMatchObject({ userId: user._id, identifierValue: 'listed@example.com', expires: record!.expiresAt.toISOString() });
    const page2 = await sessionsRpc.listUserSessions({ userId: user._id, page: 2, pageSize: 2 }, basic(A));
    expect({ ids: page2.longSessions.map((l) => l.longSessionId), paging: page2.paging }).toMatchObject({ ids: [loggedOut.sessionId], paging: { page: 2, totalPages: 2, totalItems: 3 } });
    // Past its end it reads "expired".
    advance(31 * DAY);
    expect((await sessionsRpc.getSession({ longSessionId: live.sessionId }, basic(A))).longSession?.status).toBe('expired');
  });

  it('reads one by user and ID or by ID; another project\'s (or user\'s) is 404', async () => {
    const user = await newUser(A, 'Read One');
    const other = await newUser(A, 'Someone Else');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    expect((await sessionsRpc.getUserSession({ userId: user._id, longSessionId: s.sessionId }, basic(A))).longSession).toMatchObject({ longSessionId: s.sessionId, status: 'active', identifierValue: '' });
    expect((await sessionsRpc.getSession({ longSessionId: s.sessionId }, basic(A))).longSession?.longSessionId).toBe(s.sessionId);
    for (const call of [
      sessionsRpc.getSession({ longSessionId: s.sessionId }, basic(B)),
      sessionsRpc.getUserSession({ userId: user._id, longSessionId: s.sessionId }, basic(B)),
      sessionsRpc.getUserSession({ userId: other._id, longSessionId: s.sessionId }, basic(A)),
      sessionsRpc.updateUserSession({ userId: user._id, longSessionId: s.sessionId, status: 'revoked' }, basic(B)),
      sessionsRpc.updateUserSession({ userId: other._id, longSessionId: s.sessionId, status: 'revoked' }, basic(A)),
    ]) {
      expect(await errorOf(call)).toEqual({ code: Code.NotFound, type: 'session_not_found' });
    }
    expect(await errorOf(sessionsRpc.listUserSessions({ userId: user._id }, basic(B)))).toEqual({ code: Code.NotFound, type: 'user_not_found' });
    // None of those touched it.
    expect((await sessionRecord(s.sessionId))?.status).toBe('active');
  });

  it('revokes one (PATCH status revoked): its refresh token is refused at once, on refresh and on /v2/me/*', async () => {
    const user = await newUser(A, 'Revoked');
    const s = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    const r = await sessionsRpc.updateUserSession({ userId: user._id, longSessionId: s.sessionId, status: 'revoked' }, basic(A));
    expect(r.longSession).toMatchObject({ longSessionId: s.sessionId, status: 'revoked' });
    expect(await sessionRecord(s.sessionId)).toMatchObject({ status: 'revoked', revokeReason: 'revoked_by_application' });
    expect(await errorOf(refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! }))).toMatchObject({ type: 'session_ended' });
    // That refresh spent the token; shown again it is still "ended", not a reuse of a live session.
    expect(await errorOf(requireActiveRefreshToken(deps, { projectId: A, refreshToken: s.refreshToken! }))).toMatchObject({ type: 'session_ended' });
    expect(await errorOf(requireActiveSession(deps, { projectId: A, sessionId: s.sessionId, userId: user._id }))).toMatchObject({ type: 'session_ended' });
    // Idempotent, and an ended session keeps the status it ended with.
    await endSession(deps, { projectId: A, sessionId: s.sessionId });
    expect((await sessionsRpc.updateUserSession({ userId: user._id, longSessionId: s.sessionId, status: 'revoked' }, basic(A))).longSession?.status).toBe('revoked');
    expect(await errorOf(sessionsRpc.updateUserSession({ userId: user._id, longSessionId: s.sessionId, status: 'active' }, basic(A)))).toMatchObject({ code: Code.InvalidArgument });
  });

  it('reports a kept session unused past the idle timeout as inactivity_reached', async () => {
    const { project } = await createProject(deps, { name: 'Idle listed', rpId: 'example.com', origins: ['https://app.example.com'] });
    await updateSessionSettings(deps, project._id, { refreshTokenRotation: 'keep' });
    const user = await newUser(project._id, 'Idle Listed');
    const s = await startSession(deps, { projectId: project._id, userId: user._id, withRefreshToken: true });
    advance(3 * DAY + 1);
    expect((await sessionsRpc.getSession({ longSessionId: s.sessionId }, basic(project._id))).longSession?.status).toBe('inactivity_reached');
  });

  it('disabling the user (PATCH /v2/users/{userID} status disabled) ends all their sessions', async () => {
    const user = await newUser(A, 'To Disable');
    const keep = await newUser(A, 'Bystander');
    const s1 = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    const s2 = await startSession(deps, { projectId: A, userId: user._id, withRefreshToken: true });
    const bystander = await startSession(deps, { projectId: A, userId: keep._id, withRefreshToken: true });
    const updated = await usersRpc.updateUser({ userId: user._id, status: 'disabled' }, basic(A));
    expect(updated.user).toMatchObject({ userId: user._id, status: 'disabled', fullName: 'To Disable' });
    for (const s of [s1, s2]) {
      expect(await sessionRecord(s.sessionId)).toMatchObject({ status: 'revoked', revokeReason: 'user_unavailable' });
      expect(await errorOf(refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! }))).toMatchObject({ type: 'session_ended' });
    }
    expect((await sessionRecord(bystander.sessionId))?.status).toBe('active');
    // Another project cannot reach the user; a name change alone ends nothing.
    expect(await errorOf(usersRpc.updateUser({ userId: keep._id, status: 'disabled' }, basic(B)))).toMatchObject({ code: Code.NotFound, type: 'user_not_found' });
    expect((await usersRpc.updateUser({ userId: keep._id, fullName: '  Renamed  ' }, basic(A))).user).toMatchObject({ fullName: 'Renamed', status: 'active' });
    expect((await sessionRecord(bystander.sessionId))?.status).toBe('active');
  });
});

describe('session settings', () => {
  it('honours the project lifetimes', async () => {
    const { project } = await createProject(deps, { name: 'Sessions settings', rpId: 'example.com', origins: ['https://app.example.com'] });
    await updateSessionSettings(deps, project._id, { sessionLifetimeSeconds: 120, refreshLifetimeSeconds: 7200 });
    const user = await newUser(project._id, 'Configured');
    const s = await startSession(deps, { projectId: project._id, userId: user._id, withRefreshToken: true });
    const claims = await verify(project._id, s.sessionToken);
    expect(claims.exp! - claims.iat!).toBe(120);
    expect((await sessionRecord(s.sessionId))?.expiresAt).toEqual(new Date(clock.getTime() + 7_200_000));
    advance(7201);
    expect(await errorOf(refreshSession(deps, { projectId: project._id, refreshToken: s.refreshToken! }))).toMatchObject({ type: 'session_ended' });
  });

  it('keeps the refresh token where the project says so: every refresh answers it again, and the session checks still apply', async () => {
    const { project } = await createProject(deps, { name: 'Sessions keep', rpId: 'example.com', origins: ['https://app.example.com'] });
    const user = await newUser(project._id, 'Kept', [{ type: 'email', value: 'kept@example.com' }]);
    // A token from before the switch, already traded in: still a reuse afterwards.
    const before = await startSession(deps, { projectId: project._id, userId: user._id, withRefreshToken: true });
    const traded = await refreshSession(deps, { projectId: project._id, refreshToken: before.refreshToken! });
    expect(traded.refreshToken).not.toBe(before.refreshToken);
    await updateSessionSettings(deps, project._id, { refreshTokenRotation: 'keep' });
    expect(await errorOf(refreshSession(deps, { projectId: project._id, refreshToken: before.refreshToken! }))).toMatchObject({ type: 'refresh_token_reused' });
    expect(await sessionRecord(before.sessionId)).toMatchObject({ status: 'revoked', revokeReason: 'refresh_token_reuse' });

    const s = await startSession(deps, { projectId: project._id, userId: user._id, withRefreshToken: true });
    advance(600);
    const r1 = await refreshSession(deps, { projectId: project._id, refreshToken: s.refreshToken! });
    advance(600);
    const r2 = await refreshSession(deps, { projectId: project._id, refreshToken: s.refreshToken! });
    expect([r1.refreshToken, r2.refreshToken]).toEqual([s.refreshToken, s.refreshToken]);
    expect(r2.sessionToken).not.toBe(r1.sessionToken);
    expect(await verify(project._id, r2.sessionToken)).toMatchObject({ sub: user._id, sid: s.sessionId });
    const stored = await env.store.db.collection<RefreshTokenRecord>('refresh_tokens').find({ sessionId: s.sessionId }).toArray();
    expect(stored.map((t) => t.status)).toEqual(['active']);
    expect(await requireActiveRefreshToken(deps, { projectId: project._id, refreshToken: s.refreshToken! })).toMatchObject({ _id: s.sessionId });
    // Unknown, another project's, and after logout: refused as with rotation.
    expect(await errorOf(refreshSession(deps, { projectId: project._id, refreshToken: `rt_${'k'.repeat(43)}` }))).toMatchObject({ type: 'invalid_refresh_token' });
    expect(await errorOf(refreshSession(deps, { projectId: A, refreshToken: s.refreshToken! }))).toMatchObject({ type: 'invalid_refresh_token' });
    await endSession(deps, { projectId: project._id, refreshToken: s.refreshToken! });
    expect(await errorOf(refreshSession(deps, { projectId: project._id, refreshToken: s.refreshToken! }))).toMatchObject({ type: 'session_ended' });
    // Past the session's end.
    const late = await startSession(deps, { projectId: project._id, userId: user._id, withRefreshToken: true });
    advance(31 * DAY);
    expect(await errorOf(refreshSession(deps, { projectId: project._id, refreshToken: late.refreshToken! }))).toMatchObject({ type: 'session_ended' });
    expect(await errorOf(updateSessionSettings(deps, project._id, { refreshTokenRotation: 'never' as 'keep' }))).toMatchObject({ type: 'validation_error' });
  });

  it('refuses lifetimes out of range', async () => {
    for (const bad of [{ sessionLifetimeSeconds: 59 }, { sessionLifetimeSeconds: 86_401 }, { refreshLifetimeSeconds: 3599 }, { refreshLifetimeSeconds: 31_536_001 }, { sessionLifetimeSeconds: 90.5 }]) {
      expect(await errorOf(updateSessionSettings(deps, A, bad))).toMatchObject({ code: Code.InvalidArgument, type: 'validation_error' });
    }
    expect(await errorOf(updateSessionSettings(deps, 'pro-1', { sessionLifetimeSeconds: 600 }))).toMatchObject({ type: 'project_not_found' });
  });

  it('session-settings (CLI) sets and prints them', async () => {
    const { project } = await createProject(deps, { name: 'Sessions CLI', rpId: 'example.com', origins: ['https://app.example.com'] });
    const shown = await parseProjectCommand(['session-settings', '--project', project._id]).run(deps);
    const defaults = { reauthWindowSeconds: 900, keepIdleTimeoutSeconds: 259_200, keepMaxLifetimeSeconds: 604_800 };
    expect(shown).toEqual({ projectID: project._id, sessionLifetimeSeconds: 900, refreshLifetimeSeconds: 2_592_000, refreshTokenRotation: 'rotate', ...defaults });
    const set = await parseProjectCommand(['session-settings', '--project', project._id, '--session-lifetime', '300', '--refresh-lifetime', '86400']).run(deps);
    expect(set).toEqual({ projectID: project._id, sessionLifetimeSeconds: 300, refreshLifetimeSeconds: 86_400, refreshTokenRotation: 'rotate', ...defaults });
    const kept = await parseProjectCommand(['session-settings', '--project', project._id, '--refresh-rotation', 'keep']).run(deps);
    expect(kept).toEqual({ projectID: project._id, sessionLifetimeSeconds: 300, refreshLifetimeSeconds: 86_400, refreshTokenRotation: 'keep', ...defaults });
    const limits = await parseProjectCommand([
      'session-settings', '--project', project._id, '--reauth-window', '300', '--keep-idle-timeout', '3600', '--keep-max-lifetime', '86400',
    ]).run(deps);
    expect(limits).toEqual({ projectID: project._id, sessionLifetimeSeconds: 300, refreshLifetimeSeconds: 86_400, refreshTokenRotation: 'keep', reauthWindowSeconds: 300, keepIdleTimeoutSeconds: 3600, keepMaxLifetimeSeconds: 86_400 });
    expect(() => parseProjectCommand(['session-settings', '--project', project._id, '--reauth-window', '30'])).toThrow(UsageError);
    expect(() => parseProjectCommand(['session-settings', '--project', project._id, '--keep-idle-timeout', '60'])).toThrow(UsageError);
    expect(() => parseProjectCommand(['session-settings', '--project', project._id, '--keep-max-lifetime', '100000000'])).toThrow(UsageError);
    expect(() => parseProjectCommand(['session-settings', '--project', project._id, '--refresh-rotation', 'sometimes'])).toThrow(UsageError);
    expect(() => parseProjectCommand(['session-settings', '--project', project._id, '--session-lifetime', '10'])).toThrow(UsageError);
    expect(() => parseProjectCommand(['session-settings', '--project', project._id, '--refresh-lifetime', '1e9'])).toThrow(UsageError);
  });
});

describe('signing-key rotation', () => {
  it('publishes the new key before it signs, keeps old tokens verifiable until their key retires, then unpublishes and prunes it', async () => {
    const { project, clientKey: oldClientKey } = await createProject(deps, { name: 'Key rotation', rpId: 'example.com', origins: ['https://app.example.com'] });
    const user = await newUser(project._id, 'Rotating');
    const before = await startSession(deps, { projectId: project._id, userId: user._id, withRefreshToken: true });
    const oldKid = project.signingKeys[0].kid;

    advance(10);
    const rotated = (await parseProjectCommand(['rotate-signing-key', '--project', project._id]).run(deps)) as Record<string, any>;
    const activatesAt = new Date(clock.getTime() + KEY_ACTIVATION_DELAY_SECONDS * 1000);
    const retiresAt = new Date(activatesAt.getTime() + keyRetirementSeconds() * 1000);
    expect(keyRetirementSeconds()).toBe(365 * DAY);
    expect(rotated).toEqual({
      projectID: project._id,
      kid: expect.any(String),
      activatesAt: activatesAt.toISOString(),
      clientKey: expect.any(String),
      retiring: [{ kid: oldKid, retiresAt: retiresAt.toISOString() }],
    });
    expect(rotated.kid).not.toBe(oldKid);

    // Both keys are published at once; the old key keeps signing until the new one activates.
    const jwksNow = await projectsRpc.getJwks({}, { headers: { [HEADERS.projectId]: project._id } });
    expect(jwksNow.keys.map((k) => k.kid).sort()).toEqual([oldKid, rotated.kid].sort());
    const info = await projectsRpc.getProjectPublicInfo({ projectId: project._id });
    expect(info.keys.map((k) => k.kid).sort()).toEqual([oldKid, rotated.kid].sort());
    const during = await refreshSession(deps, { projectId: project._id, refreshToken: before.refreshToken! });
    expect(decodeProtectedHeader(during.sessionToken).kid).toBe(oldKid);
    // The client key is signed with the new key right away, and verifies.
    expect(decodeProtectedHeader(rotated.clientKey as string).kid).toBe(rotated.kid);
    expect(await verifyProjectToken(deps, project._id, rotated.clientKey as string, 'client')).toMatchObject({ sub: project._id });

    // After activation new tokens name the new key; tokens from before still verify.
    clock = new Date(activatesAt.getTime() + 1000);
    const after = await refreshSession(deps, { projectId: project._id, refreshToken: during.refreshToken });
    expect(decodeProtectedHeader(after.sessionToken).kid).toBe(rotated.kid);
    expect((await verify(project._id, after.sessionToken)).sid).toBe(before.sessionId);
    expect(await verifyProjectToken(deps, project._id, oldClientKey, 'client')).not.toBeNull();
    clock = new Date(activatesAt.getTime() - 1000);
    const lastOld = await signToken(deps, project._id, { kind: 'invitation' }, { expiresIn: 365 * DAY });
    expect(decodeProtectedHeader(lastOld).kid).toBe(oldKid);
    // The last token the old key could sign still verifies just before retiresAt.
    clock = new Date(retiresAt.getTime() - 2000);
    expect(await verifyProjectToken(deps, project._id, lastOld, 'invitation')).not.toBeNull();

    // Past retiresAt the old key is gone from the JWKS, and its tokens no longer verify.
    clock = new Date(retiresAt.getTime() + 1000);
    const later = await projectsRpc.getJwks({}, { headers: { [HEADERS.projectId]: project._id } });
    expect(later.keys.map((k) => k.kid)).toEqual([rotated.kid]);
    expect(await verifyProjectToken(deps, project._id, oldClientKey, 'client')).toBeNull();
    expect(await verifyProjectToken(deps, project._id, rotated.clientKey as string, 'client')).not.toBeNull();

    // The next rotation drops the retired key's record; the previous key starts retiring.
    const again = await rotateSigningKey(deps, project._id);
    const stored = await getProject(deps, project._id);
    expect(stored.signingKeys.map((k) => k.kid)).toEqual([rotated.kid, again.kid]);
    expect(again.retiring).toEqual([{ kid: rotated.kid, retiresAt: new Date(again.activatesAt.getTime() + keyRetirementSeconds() * 1000) }]);
  });

  it('a key already retiring keeps its date at the next rotation', async () => {
    const { project } = await createProject(deps, { name: 'Key rotation twice', rpId: 'example.com', origins: ['https://app.example.com'] });
    const first = await rotateSigningKey(deps, project._id);
    advance(3600);
    const second = await rotateSigningKey(deps, project._id);
    expect(second.retiring).toEqual([first.retiring[0], { kid: first.kid, retiresAt: new Date(second.activatesAt.getTime() + keyRetirementSeconds() * 1000) }]);
    expect(await errorOf(rotateSigningKey(deps, 'pro-1'))).toMatchObject({ type: 'project_not_found' });
  });
});
