/**
 * Sessions through the real gateway: /v2/me/refresh (refresh-token rotation, reuse detection) and
 * /v2/me/logout (with a session token or a refresh token), and signing-key rotation that keeps
 * live session tokens valid. Sessions are started with the connect service's own domain code
 * against the stack's database (the sign-up and login flows are tested elsewhere).
 */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProjectAdmin, type ProjectAdmin } from '../../services/connect/src/cli/projectAdmin.js';
import { rotateSigningKey } from '../../services/connect/src/projects/domain/rotateSigningKey.js';
import type { SessionDeps } from '../../services/connect/src/sessions/domain/sessionDeps.js';
import { startSession, type StartedSession } from '../../services/connect/src/sessions/domain/startSession.js';
import { mongoIdentifierStore } from '../../services/connect/src/users/store/identifiers.js';
import { mongoSessionStore, type SessionRecord } from '../../services/connect/src/sessions/store/sessions.js';
import { mongoUserStore } from '../../services/connect/src/users/store/users.js';
import { createLogger } from '../../services/runtime/logger.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';
const REFRESH_TOKEN = /^rt_[A-Za-z0-9_-]{43}$/;

let stack: Stack;
let project: ProjectJson;
let other: ProjectJson;
let admin: ProjectAdmin;
let deps: Omit<SessionDeps, 'events'>; // starts sessions only: records no events

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('sessions-e2e', [ORIGIN]);
  other = await stack.createProject('sessions-e2e-other', [ORIGIN]);
  admin = await openProjectAdmin({
    mongodbUri: stack.env.MONGODB_URI,
    masterKey: parseMasterKey(stack.env.MASTER_KEY),
    urls: { frontendApiUrl: stack.env.FRONTEND_API_URL, backendApiUrl: stack.env.BACKEND_API_URL },
  });
  deps = {
    ...admin.deps,
    sessions: mongoSessionStore(stack.db),
    users: mongoUserStore(stack.db),
    identifiers: mongoIdentifierStore(stack.db),
    logger: createLogger('sessions-e2e', 'silent'),
  };
}, 120_000);
afterAll(async () => {
  await admin?.close();
  await stack?.stop();
});

type Rsp = { status: number; body: Record<string, any> };

/** POST to the frontend API with a bearer token, as the web SDK does. */
async function me(path: '/v2/me/refresh' | '/v2/me/logout', bearer: string, as: ProjectJson = project): Promise<Rsp> {
  const res = await fetch(`${stack.frontendUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'x-corbado-projectid': as.projectID, origin: ORIGIN, 'content-type': 'application/json' },
    body: '{}',
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

function expectError(r: Rsp, type: string) {
  expect({ status: r.status, type: r.body.error?.type }).toEqual({ status: 401, type });
}

/** A user (backend API) with a fresh session that has a refresh token. */
async function signedIn(fullName: string, as: ProjectJson = project): Promise<StartedSession & { userId: string }> {
  const res = await fetch(`${stack.backendUrl}/v2/users`, {
    method: 'POST',
    headers: { authorization: basic(as), 'content-type': 'application/json' },
    body: JSON.stringify({ fullName, status: 'active' }),
  });
  expect(res.status).toBe(200);
  const userId = ((await res.json()) as { userID: string }).userID;
  return { userId, ...(await startSession(deps, { projectId: as.projectID, userId, withRefreshToken: true })) };
}

const sessionRecord = (id: string) => stack.db.collection<SessionRecord>('sessions').findOne({ _id: id });

async function jwks(as: ProjectJson = project) {
  const r = await fetch(`${stack.frontendUrl}/.well-known/jwks`, { headers: { 'x-corbado-projectid': as.projectID } });
  return (await r.json()) as JSONWebKeySet;
}

describe('/v2/me/refresh', () => {
  it('trades the refresh token for a new session token and a new refresh token; the old one is refused', async () => {
    const s = await signedIn('Refresh User');
    const r = await me('/v2/me/refresh', s.refreshToken!);
    expect(r.status).toBe(200);
    // The reference's names and web-core 3.x's, the same tokens under each.
    expect(Object.keys(r.body).sort()).toEqual(['longSession', 'refreshToken', 'sessionToken', 'shortSession']);
    expect({ sessionToken: r.body.sessionToken, refreshToken: r.body.refreshToken }).toEqual({ sessionToken: r.body.shortSession, refreshToken: r.body.longSession });
    expect(r.body.longSession).toMatch(REFRESH_TOKEN);
    const { payload } = await jwtVerify(r.body.shortSession as string, createLocalJWKSet(await jwks()), { issuer: project.frontendApiUrl, audience: project.projectID });
    expect(payload).toMatchObject({ kind: 'session', sub: s.userId, sid: s.sessionId, name: 'Refresh User', identifiers: [] });

    // Presenting the spent token again is a reuse: refused, and the session ends.
    expectError(await me('/v2/me/refresh', s.refreshToken!), 'refresh_token_reused');
    expect(await sessionRecord(s.sessionId)).toMatchObject({ status: 'revoked', revokeReason: 'refresh_token_reuse' });
    expectError(await me('/v2/me/refresh', r.body.longSession as string), 'session_ended');
  });

  it('keeps rotating while each token is used once', async () => {
    const s = await signedIn('Rotating User');
    let token = s.refreshToken!;
    for (let i = 0; i < 3; i++) {
      const r = await me('/v2/me/refresh', token);
      expect(r.status).toBe(200);
      expect(r.body.longSession).not.toBe(token);
      token = r.body.longSession as string;
    }
    expect((await sessionRecord(s.sessionId))?.status).toBe('active');
  });

  it('refuses garbage, unknown tokens and another project\'s tokens with 401', async () => {
    const r = await me('/v2/me/refresh', 'garbage');
    expect(r.status).toBe(401);
    expect((await me('/v2/me/refresh', `rt_${'x'.repeat(42)}`)).status).toBe(401);
    expectError(await me('/v2/me/refresh', `rt_${'x'.repeat(43)}`), 'invalid_refresh_token');
    const s = await signedIn('Tenant User');
    expectError(await me('/v2/me/refresh', s.refreshToken!, other), 'invalid_refresh_token');
    // A session token is not a refresh token.
    expect((await me('/v2/me/refresh', s.sessionToken)).status).toBe(401);
    expect((await me('/v2/me/refresh', s.refreshToken!)).status).toBe(200);
  });
});

describe('/v2/me/logout', () => {
  it('with a refresh token: 204, then the session cannot be refreshed', async () => {
    const s = await signedIn('Logout Refresh');
    const r = await me('/v2/me/logout', s.refreshToken!);
    expect(r).toEqual({ status: 204, body: {} });
    expect(await sessionRecord(s.sessionId)).toMatchObject({ status: 'revoked', revokeReason: 'logout' });
    expectError(await me('/v2/me/refresh', s.refreshToken!), 'session_ended');
    expect((await me('/v2/me/logout', s.refreshToken!)).status).toBe(204);
  });

  it('with a session token: 204, then the session cannot be refreshed', async () => {
    const s = await signedIn('Logout Session');
    expect((await me('/v2/me/logout', s.sessionToken)).status).toBe(204);
    expect((await sessionRecord(s.sessionId))?.status).toBe('revoked');
    expectError(await me('/v2/me/refresh', s.refreshToken!), 'session_ended');
  });

  it('refuses a garbage bearer with 401', async () => {
    expect((await me('/v2/me/logout', 'garbage')).status).toBe(401);
  });
});

describe('signing-key rotation', () => {
  it('keeps session tokens signed before the rotation valid at the gateway, and the new client key works', async () => {
    // A project the gateway has not cached yet, so its first look-up happens after the rotation.
    const rotating = await stack.createProject('sessions-e2e-rotation', [ORIGIN]);
    const before = await signedIn('Key Rotation', rotating);
    const oldKid = decodeProtectedHeader(before.sessionToken).kid!;

    const rotated = await rotateSigningKey(admin.deps, rotating.projectID);
    expect(rotated.retiring.map((k) => k.kid)).toEqual([oldKid]);
    expect((await jwks(rotating)).keys.map((k) => k.kid).sort()).toEqual([oldKid, rotated.kid].sort());

    // Until the new key activates the old one keeps signing; both kinds of token pass the gateway.
    const refreshed = await me('/v2/me/refresh', before.refreshToken!, rotating);
    expect(refreshed.status).toBe(200);
    expect(decodeProtectedHeader(refreshed.body.shortSession as string).kid).toBe(oldKid);
    const cfg = await fetch(`${stack.frontendUrl}/v2/session-config`, { headers: { authorization: `Bearer ${rotated.clientKey}` } });
    expect(cfg.status).toBe(200);
    expect(decodeProtectedHeader(rotated.clientKey).kid).toBe(rotated.kid);
    // The session token issued before the rotation is still accepted.
    expect((await me('/v2/me/logout', before.sessionToken, rotating)).status).toBe(204);
    expectError(await me('/v2/me/refresh', refreshed.body.longSession as string, rotating), 'session_ended');
  });
});
