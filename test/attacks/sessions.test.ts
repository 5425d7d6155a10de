/**
 * Issue #29, "a refresh token does everything": an attacker who copied a signed-in user's refresh
 * token (it sits in localStorage under web-core) or session token tries, over HTTP against the
 * whole stack, to turn it into lasting control of the account: delete it, add their own passkey,
 * change or add an identifier; to keep using a token the application revoked or the user's
 * rotation spent; and to ride a kept token past its idle timeout. Each case fails if the attack
 * works.
 *
 * The victim's session is started with the connect service's own code against the stack's
 * database (how sign-up and login start one is tested in test/e2e); "signed in 16 minutes ago" is
 * the session record's authentication time moved back, which is exactly what the clock would do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { openProjectAdmin, type ProjectAdmin } from '../../services/connect/src/cli/projectAdmin.js';
import type { SessionDeps } from '../../services/connect/src/sessions/domain/sessionDeps.js';
import { startSession, type StartedSession } from '../../services/connect/src/sessions/domain/startSession.js';
import { updateSessionSettings } from '../../services/connect/src/projects/domain/updateSessionSettings.js';
import { mongoSessionStore, type SessionRecord } from '../../services/connect/src/sessions/store/sessions.js';
import { mongoIdentifierStore } from '../../services/connect/src/users/store/identifiers.js';
import { mongoUserStore } from '../../services/connect/src/users/store/users.js';
import { createLogger } from '../../services/runtime/logger.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';
const capable = { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true, clientCapabilities: { userVerifyingPlatformAuthenticator: true, hybridTransport: true } };

let stack: Stack;
let project: ProjectJson;
let kept: ProjectJson;
let other: ProjectJson;
let admin: ProjectAdmin;
let deps: Omit<SessionDeps, 'events'>; // starts sessions only: records no events

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('attack-sessions', [ORIGIN]);
  kept = await stack.createProject('attack-sessions-keep', [ORIGIN]);
  other = await stack.createProject('attack-sessions-other', [ORIGIN]);
  admin = await openProjectAdmin({
    mongodbUri: stack.env.MONGODB_URI,
    masterKey: parseMasterKey(stack.env.MASTER_KEY),
    urls: { frontendApiUrl: stack.env.FRONTEND_API_URL, backendApiUrl: stack.env.BACKEND_API_URL },
  });
  await updateSessionSettings(admin.deps, kept.projectID, { refreshTokenRotation: 'keep' });
  deps = {
    ...admin.deps,
    sessions: mongoSessionStore(stack.db),
    users: mongoUserStore(stack.db),
    identifiers: mongoIdentifierStore(stack.db),
    logger: createLogger('attack-sessions', 'silent'),
  };
}, 120_000);
afterAll(async () => {
  await admin?.close();
  await stack?.stop();
});

type Rsp = { status: number; body: Record<string, any> };

/** A frontend call as web-core makes it: the token as the bearer. */
async function front(method: string, path: string, bearer: string, body?: unknown, as: ProjectJson = project): Promise<Rsp> {
  const res = await fetch(`${stack.frontendUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, 'x-corbado-projectid': as.projectID, origin: ORIGIN, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

async function back(method: string, path: string, body?: unknown, as: ProjectJson = project): Promise<Rsp> {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method,
    headers: { authorization: basic(as), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

function expectError(r: Rsp, status: number, type: string) {
  expect({ status: r.status, type: r.body.error?.type, httpStatusCode: r.body.httpStatusCode }).toEqual({ status, type, httpStatusCode: status });
}

/** A victim (backend API) with a verified email address and a fresh session with a refresh token. */
async function victim(as: ProjectJson = project): Promise<StartedSession & { userId: string; identifierId: string }> {
  const user = await back('POST', '/v2/users', { fullName: 'Victim', status: 'active' }, as);
  expect(user.status).toBe(200);
  const userId = user.body.userID as string;
  const email = `victim-${userId}@bank.example`;
  const identifier = await back('POST', `/v2/users/${userId}/identifiers`, { identifierType: 'email', identifierValue: email, status: 'verified' }, as);
  expect(identifier.status).toBe(200);
  const started = await startSession(deps, { projectId: as.projectID, userId, withRefreshToken: true });
  return { userId, identifierId: identifier.body.identifierID as string, ...started };
}

const sessions = () => stack.db.collection<SessionRecord>('sessions');
/** The session's sign-in was `seconds` ago. */
const signedInAgo = (sessionId: string, seconds: number) => sessions().updateOne({ _id: sessionId }, { $set: { authenticatedAt: new Date(Date.now() - seconds * 1000) } });

describe('a token of a session signed in longer ago than the window (15 minutes)', () => {
  it('cannot delete the account, add a passkey, add or change an identifier: neither as refresh token nor as session token', async () => {
    const v = await victim();
    await signedInAgo(v.sessionId, 16 * 60);
    // A refresh works and hands out a new session token, but it keeps the old sign-in time.
    const refreshed = await front('POST', '/v2/me/refresh', v.refreshToken!, {});
    expect(refreshed.status).toBe(200);
    const sessionToken = refreshed.body.sessionToken as string;
    const nextRefresh = refreshed.body.refreshToken as string;
    expect(decodeJwt(sessionToken).auth_time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) - 16 * 60);

    for (const bearer of [nextRefresh, sessionToken]) {
      expectError(await front('DELETE', '/v2/me', bearer), 403, 'reauthentication_required');
      expectError(await front('POST', '/v2/me/passkeys/append/start', bearer, { clientInformation: capable }), 403, 'reauthentication_required');
      expectError(await front('POST', '/v2/me/identifier', bearer, { identifierType: 'email', value: 'attacker@evil.example' }), 403, 'reauthentication_required');
      expectError(await front('PATCH', '/v2/me/identifier', bearer, { identifierID: v.identifierId, identifierType: 'email', value: 'attacker2@evil.example' }), 403, 'reauthentication_required');
    }
    // Nothing changed: the user is there with only their own address.
    const me = await front('GET', '/v2/me', nextRefresh);
    expect(me.status).toBe(200);
    expect((me.body.identifiers as Array<{ value: string }>).map((i) => i.value)).toEqual([`victim-${v.userId}@bank.example`]);
    expect((await back('GET', `/v2/users/${v.userId}`)).status).toBe(200);
  });

  it('right after the sign-in the same calls work (the window, not the token kind, is the guard)', async () => {
    const v = await victim();
    const r = await front('POST', '/v2/me/identifier', v.refreshToken!, { identifierType: 'email', value: `second-${v.userId}@bank.example` });
    expect(r.status).toBe(200);
    expect((await front('POST', '/v2/me/passkeys/append/start', v.refreshToken!, { clientInformation: capable })).status).toBe(200);
    expect((await front('DELETE', '/v2/me', v.sessionToken)).status).toBe(200);
    expect((await back('GET', `/v2/users/${v.userId}`)).status).toBe(404);
  });
});

describe('a session the application ended', () => {
  it('a revoked long session\'s refresh token is refused at once; another project cannot see or revoke it', async () => {
    const v = await victim();
    const path = `/v2/users/${v.userId}/longSessions/${v.sessionId}`;
    expectError(await back('PATCH', path, { status: 'revoked' }, other), 404, 'session_not_found');
    expectError(await back('GET', `/v2/longSessions/${v.sessionId}`, undefined, other), 404, 'session_not_found');
    const listed = await back('GET', `/v2/users/${v.userId}/longSessions`);
    expect(listed.status).toBe(200);
    expect(listed.body.longSessions).toEqual([{ longSessionID: v.sessionId, userID: v.userId, identifierValue: `victim-${v.userId}@bank.example`, status: 'active', expires: expect.any(String) }]);

    const revoked = await back('PATCH', path, { status: 'revoked' });
    expect({ status: revoked.status, session: revoked.body.status }).toEqual({ status: 200, session: 'revoked' });
    expectError(await front('POST', '/v2/me/refresh', v.refreshToken!, {}), 401, 'session_ended');
    expectError(await front('GET', '/v2/me', v.refreshToken!), 401, 'session_ended');
    expectError(await front('GET', '/v2/me', v.sessionToken), 401, 'session_ended');
    expect((await back('GET', path)).body.status).toBe('revoked');
  });

  it('disabling the user ends every session they have', async () => {
    const v = await victim();
    const second = await startSession(deps, { projectId: project.projectID, userId: v.userId, withRefreshToken: true });
    const r = await back('PATCH', `/v2/users/${v.userId}`, { status: 'disabled' });
    expect({ status: r.status, user: r.body.status }).toEqual({ status: 200, user: 'disabled' });
    for (const token of [v.refreshToken!, second.refreshToken!]) expectError(await front('POST', '/v2/me/refresh', token, {}), 401, 'session_ended');
  });
});

describe('refresh rotation', () => {
  it('rotate: a spent refresh token shown on /v2/me is a reuse and ends the session for every holder', async () => {
    const v = await victim();
    // The owner refreshes; the thief still holds the copied (now spent) token.
    const owner = await front('POST', '/v2/me/refresh', v.refreshToken!, {});
    expect(owner.status).toBe(200);
    expectError(await front('GET', '/v2/me', v.refreshToken!), 401, 'refresh_token_reused');
    expect(await sessions().findOne({ _id: v.sessionId })).toMatchObject({ status: 'revoked', revokeReason: 'refresh_token_reuse' });
    expectError(await front('POST', '/v2/me/refresh', owner.body.refreshToken as string, {}), 401, 'session_ended');
  });

  it('keep: a copied token stops working once the session sat unused past the idle timeout', async () => {
    const v = await victim(kept);
    expect((await front('POST', '/v2/me/refresh', v.refreshToken!, {}, kept)).body.refreshToken).toBe(v.refreshToken);
    await sessions().updateOne({ _id: v.sessionId }, { $set: { lastUsedAt: new Date(Date.now() - (3 * 86_400 + 60) * 1000) } });
    expectError(await front('GET', '/v2/me', v.refreshToken!, undefined, kept), 401, 'session_ended');
    expectError(await front('POST', '/v2/me/refresh', v.refreshToken!, {}, kept), 401, 'session_ended');
    expect((await back('GET', `/v2/longSessions/${v.sessionId}`, undefined, kept)).body.status).toBe('inactivity_reached');
  });

  it('keep: a session ends at its maximum lifetime (7 days) however often it is used', async () => {
    const v = await victim(kept);
    const weekAgo = new Date(Date.now() - (7 * 86_400 + 60) * 1000);
    await sessions().updateOne({ _id: v.sessionId }, { $set: { createdAt: weekAgo, authenticatedAt: weekAgo } });
    expectError(await front('POST', '/v2/me/refresh', v.refreshToken!, {}, kept), 401, 'session_ended');
  });
});
