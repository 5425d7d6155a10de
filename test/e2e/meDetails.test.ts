/**
 * The signed-in user's details and identifiers through the real gateway, as the published web SDK's
 * generated clients call them (web-core 3.5.0 UsersApi and ConfigsApi): GET /v2/user-details-config,
 * PATCH and DELETE /v2/me, POST, PATCH and DELETE /v2/me/identifier (DELETE with a JSON body, as the
 * SDK sends it). Users come from the backend API and sessions from the connect service's own domain
 * code against the stack's database (the sign-up and login flows are tested elsewhere).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProjectAdmin, type ProjectAdmin } from '../../services/connect/src/cli/projectAdmin.js';
import type { SessionDeps } from '../../services/connect/src/sessions/domain/sessionDeps.js';
import { startSession, type StartedSession } from '../../services/connect/src/sessions/domain/startSession.js';
import { mongoSessionStore, type SessionRecord } from '../../services/connect/src/sessions/store/sessions.js';
import { mongoIdentifierStore } from '../../services/connect/src/users/store/identifiers.js';
import { mongoUserStore } from '../../services/connect/src/users/store/users.js';
import { createLogger } from '../../services/runtime/logger.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';
import { TestSmtp, toOf } from '../../services/challenge/test/testSmtp.js';
import { SoftAuthenticator } from '../kit/softAuthenticator.js';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';

const smtp = new TestSmtp();
let stack: Stack;
let project: ProjectJson;
let other: ProjectJson;
let admin: ProjectAdmin;
let deps: Omit<SessionDeps, 'events'>; // starts sessions only: records no events

beforeAll(async () => {
  await smtp.start();
  stack = await startStack({ smtpUrl: smtp.url, emailFrom: 'Me Details E2E <no-reply@localhost>' });
  project = await stack.createProject('me-details-e2e', [ORIGIN], ['--challenge-delivery', 'service', '--self-service', 'enabled']);
  other = await stack.createProject('me-details-e2e-other', [ORIGIN]);
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
    logger: createLogger('me-details-e2e', 'silent'),
  };
}, 120_000);
afterAll(async () => {
  await admin?.close();
  await stack?.stop();
  await smtp.stop();
});

type Rsp = { status: number; body: Record<string, any> };

/** A frontend call as the web SDK makes it: X-Corbado-ProjectID, and the token as Bearer. */
async function front(method: string, path: string, o: { token?: string; process?: string; body?: unknown; as?: ProjectJson } = {}): Promise<Rsp> {
  const headers: Record<string, string> = {
    'x-corbado-projectid': (o.as ?? project).projectID,
    origin: ORIGIN,
    ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
    ...(o.process ? { 'x-corbado-process-id': o.process } : {}),
  };
  const res = await fetch(`${stack.frontendUrl}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

async function back(method: string, path: string, body?: unknown, as: ProjectJson = project): Promise<Rsp> {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method,
    headers: { authorization: basic(as), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

/** The reference errorRsp with the expected status and error type. */
function expectError(r: Rsp, status: number, type: string) {
  expect({ status: r.status, type: r.body.error?.type }).toEqual({ status, type });
  expect(r.body).toMatchObject({ httpStatusCode: status, message: expect.any(String), requestData: { requestID: expect.any(String) }, runtime: expect.any(Number) });
}

function expectGeneric(r: Rsp) {
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ httpStatusCode: 200, message: 'OK', requestData: { requestID: expect.any(String) }, runtime: expect.any(Number) });
}

interface User extends StartedSession {
  userId: string;
}

/** A user (backend API) with the identifiers given (verified) and a fresh session with a refresh token. */
async function signedIn(fullName: string, identifiers: Array<[type: string, value: string]>, as: ProjectJson = project): Promise<User> {
  const created = await back('POST', '/v2/users', { fullName, status: 'active' }, as);
  expect(created.status).toBe(200);
  const userId = created.body.userID as string;
  for (const [identifierType, identifierValue] of identifiers) {
    expect((await back('POST', `/v2/users/${userId}/identifiers`, { identifierType, identifierValue, status: 'verified' }, as)).status).toBe(200);
  }
  return { userId, ...(await startSession(deps, { projectId: as.projectID, userId, withRefreshToken: true })) };
}

const TYPE_ORDER = ['email', 'phone', 'username'];

/** GET /v2/me, identifiers by type and value: identifiers created in the same millisecond have no defined order. */
async function me(user: User) {
  const r = await front('GET', '/v2/me', { token: user.sessionToken });
  expect(r.status).toBe(200);
  const body = r.body as { id: string; fullName: string; identifiers: Array<{ id: string; value: string; type: string; status: string }> };
  body.identifiers.sort((x, y) => TYPE_ORDER.indexOf(x.type) - TYPE_ORDER.indexOf(y.type) || x.value.localeCompare(y.value));
  return body;
}

async function processToken(): Promise<string> {
  const r = await front('POST', '/v2/auth/process/init', { body: { clientInformation: { isUserVerifyingPlatformAuthenticatorAvailable: true } } });
  expect(r.status).toBe(200);
  return r.body.token as string;
}

describe('GET /v2/user-details-config', () => {
  it('answers the reference userDetailsConfigRsp with a client key, a session token or a process token', async () => {
    const expected = { fullNameRequired: false, identifiers: [{ type: 'email' }, { type: 'phone' }, { type: 'username' }] };
    const client = await front('GET', '/v2/user-details-config');
    expect(client).toEqual({ status: 200, body: expected });
    const user = await signedIn('Config Reader', [['email', 'config@example.com']]);
    expect(await front('GET', '/v2/user-details-config', { token: user.sessionToken })).toEqual({ status: 200, body: expected });
    expect(await front('GET', '/v2/user-details-config', { process: await processToken() })).toEqual({ status: 200, body: expected });
  });

  it("refuses another project's session token and an unknown project; ignores unknown query fields", async () => {
    const stranger = await signedIn('Stranger', [['email', 'config-stranger@example.com']], other);
    expectError(await front('GET', '/v2/user-details-config', { token: stranger.sessionToken }), 401, 'project_mismatch');
    const res = await fetch(`${stack.frontendUrl}/v2/user-details-config`, { headers: { 'x-corbado-projectid': 'pro-999999' } });
    expect(res.status).toBe(401);
    const ignored = await front('GET', '/v2/user-details-config?fullNameRequired=true');
    expect(ignored).toEqual({ status: 200, body: { fullNameRequired: false, identifiers: [{ type: 'email' }, { type: 'phone' }, { type: 'username' }] } });
  });
});

describe('PATCH /v2/me', () => {
  it('sets the full name (trimmed); an empty one removes it', async () => {
    const user = await signedIn('Old Name', [['email', 'rename@example.com']]);
    expectGeneric(await front('PATCH', '/v2/me', { token: user.sessionToken, body: { fullName: '  Grace Hopper ' } }));
    expect((await me(user)).fullName).toBe('Grace Hopper');
    expect((await back('GET', `/v2/users/${user.userId}`)).body.fullName).toBe('Grace Hopper');
    expectGeneric(await front('PATCH', '/v2/me', { token: user.sessionToken, body: { fullName: '' } }));
    expect((await me(user)).fullName).toBe('');
  });

  it('refuses a missing, overlong or non-string name, changing nothing', async () => {
    const user = await signedIn('Kept Name', [['email', 'rename-bad@example.com']]);
    for (const body of [{}, { fullName: 'x'.repeat(257) }, { fullName: 42 }, { fullName: null }, { username: 'new' }]) {
      expectError(await front('PATCH', '/v2/me', { token: user.sessionToken, body }), 400, 'validation_error');
    }
    expect((await me(user)).fullName).toBe('Kept Name');
  });

  it('ignores fields it does not know (the JSON convention), so they change nothing else', async () => {
    const user = await signedIn('Plain', [['email', 'rename-extra@example.com']]);
    expectGeneric(await front('PATCH', '/v2/me', { token: user.sessionToken, body: { fullName: 'New', username: 'new', id: 'usr-1', identifiers: [] } }));
    const after = await me(user);
    expect(after).toMatchObject({ id: user.userId, fullName: 'New' });
    expect(after.identifiers.map((i) => i.value)).toEqual(['rename-extra@example.com']);
  });

  it("refuses no token, a process token, a client key alone and another project's session token", async () => {
    const user = await signedIn('Guarded', [['email', 'rename-guard@example.com']]);
    const body = { fullName: 'Intruder' };
    expectError(await front('PATCH', '/v2/me', { body }), 401, 'missing_credentials');
    expectError(await front('PATCH', '/v2/me', { token: await processToken(), body }), 401, 'wrong_token_kind');
    const stranger = await signedIn('Stranger', [['email', 'rename-stranger@example.com']], other);
    expectError(await front('PATCH', '/v2/me', { token: stranger.sessionToken, body }), 401, 'project_mismatch');
    expect((await me(user)).fullName).toBe('Guarded');
  });

  it("takes the session's refresh token as bearer too (web-core's SessionService authenticates /v2/me* with it), not another project's", async () => {
    const user = await signedIn('Refreshing', [['email', 'rename-refresh@example.com']]);
    expectGeneric(await front('PATCH', '/v2/me', { token: user.refreshToken!, body: { fullName: 'By Refresh Token' } }));
    expect((await me(user)).fullName).toBe('By Refresh Token');
    const stranger = await signedIn('Stranger', [['email', 'rename-stranger-refresh@example.com']], other);
    expect((await front('PATCH', '/v2/me', { token: stranger.refreshToken!, body: { fullName: 'Intruder' } })).status).toBe(401);
    expect((await me(user)).fullName).toBe('By Refresh Token');
  });
});

describe('POST /v2/me/identifier', () => {
  it('adds an email (normalized, pending) that the user then verifies with F11', async () => {
    const user = await signedIn('Adder', [['email', 'adder@example.com']]);
    expectGeneric(await front('POST', '/v2/me/identifier', { token: user.sessionToken, body: { identifierType: 'email', value: ' Adder.Work@Example.COM ' } }));
    const added = (await me(user)).identifiers.find((i) => i.value === 'adder.work@example.com');
    expect(added).toEqual({ id: expect.stringMatching(/^ide-[0-9]+$/), value: 'adder.work@example.com', type: 'email', status: 'pending' });

    expectGeneric(await front('POST', '/v2/me/identifier/verify/start', { token: user.sessionToken, body: { identifierID: added!.id } }));
    const code = await codeSentTo('adder.work@example.com');
    expectGeneric(await front('POST', '/v2/me/identifier/verify/finish', { token: user.sessionToken, body: { identifierID: added!.id, code } }));
    expect((await me(user)).identifiers.find((i) => i.id === added!.id)?.status).toBe('verified');
  });

  it('adds a phone number (E.164) and a username', async () => {
    const user = await signedIn('Multi', [['email', 'multi@example.com']]);
    expectGeneric(await front('POST', '/v2/me/identifier', { token: user.sessionToken, body: { identifierType: 'phone', value: '+49 151 1234 5678' } }));
    expectGeneric(await front('POST', '/v2/me/identifier', { token: user.sessionToken, body: { identifierType: 'username', value: 'Multi_User' } }));
    expect((await me(user)).identifiers.map((i) => [i.type, i.value, i.status])).toEqual([
      ['email', 'multi@example.com', 'verified'],
      ['phone', '+4915112345678', 'pending'],
      ['username', 'multi_user', 'pending'],
    ]);
    // One username per user.
    expectError(await front('POST', '/v2/me/identifier', { token: user.sessionToken, body: { identifierType: 'username', value: 'second' } }), 409, 'identifier_limit_reached');
    expect((await me(user)).identifiers).toHaveLength(3);
  });

  it("refuses a value the project already has (the user's own or someone else's); another project's is free", async () => {
    const user = await signedIn('Dup', [['email', 'dup@example.com']]);
    await signedIn('Holder', [['email', 'held@example.com']]);
    expectError(await front('POST', '/v2/me/identifier', { token: user.sessionToken, body: { identifierType: 'email', value: 'DUP@example.com' } }), 409, 'identifier_already_exists');
    expectError(await front('POST', '/v2/me/identifier', { token: user.sessionToken, body: { identifierType: 'email', value: 'held@example.com' } }), 409, 'identifier_already_exists');
    const stranger = await signedIn('Stranger', [['email', 'stranger-dup@example.com']], other);
    expectGeneric(await front('POST', '/v2/me/identifier', { token: stranger.sessionToken, as: other, body: { identifierType: 'email', value: 'held@example.com' } }));
    expect((await me(user)).identifiers).toHaveLength(1);
  });

  it('refuses malformed values, unknown types and missing fields; a status field is ignored (pending)', async () => {
    const user = await signedIn('Bad Input', [['email', 'bad-input@example.com']]);
    for (const body of [
      { identifierType: 'email', value: 'not-an-email' },
      { identifierType: 'phone', value: '12' },
      { identifierType: 'username', value: 'has space' },
      { identifierType: 'fax', value: '+4915112345678' },
      { identifierType: 'email' },
      { value: 'x@example.com' },
      { identifierType: 'email', value: '' },
    ]) {
      expectError(await front('POST', '/v2/me/identifier', { token: user.sessionToken, body }), 400, 'validation_error');
    }
    expect((await me(user)).identifiers).toHaveLength(1);
    // A client cannot declare its own identifier verified.
    expectGeneric(await front('POST', '/v2/me/identifier', { token: user.sessionToken, body: { identifierType: 'email', value: 'claimed@example.com', status: 'verified' } }));
    expect((await me(user)).identifiers[1]).toMatchObject({ value: 'claimed@example.com', status: 'pending' });
  });

  it("refuses no session token, a process token and another project's session token", async () => {
    const body = { identifierType: 'email', value: 'nobody@example.com' };
    expectError(await front('POST', '/v2/me/identifier', { body }), 401, 'missing_credentials');
    expectError(await front('POST', '/v2/me/identifier', { token: await processToken(), body }), 401, 'wrong_token_kind');
    const stranger = await signedIn('Stranger', [['email', 'stranger-add@example.com']], other);
    expectError(await front('POST', '/v2/me/identifier', { token: stranger.sessionToken, body }), 401, 'project_mismatch');
  });
});

describe('PATCH /v2/me/identifier', () => {
  it('changes the value; the identifier keeps its ID and is unverified until verified again', async () => {
    const user = await signedIn('Changer', [['email', 'changer@example.com'], ['username', 'changer']]);
    const [email, username] = (await me(user)).identifiers;
    expectGeneric(await front('PATCH', '/v2/me/identifier', { token: user.sessionToken, body: { identifierID: email!.id, identifierType: 'email', value: 'Changer.New@example.com' } }));
    expectGeneric(await front('PATCH', '/v2/me/identifier', { token: user.sessionToken, body: { identifierID: username!.id, identifierType: 'username', value: 'changer2' } }));
    expect((await me(user)).identifiers).toEqual([
      { id: email!.id, value: 'changer.new@example.com', type: 'email', status: 'pending' },
      { id: username!.id, value: 'changer2', type: 'username', status: 'pending' },
    ]);
    // The old value is free again.
    const next = await signedIn('Next', [['email', 'changer@example.com']]);
    expect((await me(next)).identifiers[0]?.value).toBe('changer@example.com');

    expectGeneric(await front('POST', '/v2/me/identifier/verify/start', { token: user.sessionToken, body: { identifierID: email!.id } }));
    const code = await codeSentTo('changer.new@example.com');
    expectGeneric(await front('POST', '/v2/me/identifier/verify/finish', { token: user.sessionToken, body: { identifierID: email!.id, code } }));
    expect((await me(user)).identifiers[0]).toMatchObject({ id: email!.id, status: 'verified' });
  });

  it('the same value (as typed differently) changes nothing and keeps it verified', async () => {
    const user = await signedIn('Same', [['email', 'same@example.com']]);
    const [email] = (await me(user)).identifiers;
    expectGeneric(await front('PATCH', '/v2/me/identifier', { token: user.sessionToken, body: { identifierID: email!.id, identifierType: 'email', value: 'SAME@example.com' } }));
    expect((await me(user)).identifiers).toEqual([{ id: email!.id, value: 'same@example.com', type: 'email', status: 'verified' }]);
  });

  it("refuses a taken value, another type, another user's identifier, malformed and missing fields", async () => {
    const user = await signedIn('Refused', [['email', 'refused@example.com']]);
    const holder = await signedIn('Holder', [['email', 'holder@example.com']]);
    const [email] = (await me(user)).identifiers;
    const [theirs] = (await me(holder)).identifiers;
    const patch = (body: unknown) => front('PATCH', '/v2/me/identifier', { token: user.sessionToken, body });
    expectError(await patch({ identifierID: email!.id, identifierType: 'email', value: 'holder@example.com' }), 409, 'identifier_already_exists');
    expectError(await patch({ identifierID: email!.id, identifierType: 'phone', value: '+4915112345678' }), 400, 'validation_error');
    expectError(await patch({ identifierID: theirs!.id, identifierType: 'email', value: 'hijack@example.com' }), 404, 'identifier_not_found');
    expectError(await patch({ identifierID: 'ide-1', identifierType: 'email', value: 'ghost@example.com' }), 404, 'identifier_not_found');
    for (const body of [
      { identifierID: email!.id, identifierType: 'email', value: 'nope' },
      { identifierID: 'usr-1', identifierType: 'email', value: 'x@example.com' },
      { identifierType: 'email', value: 'x@example.com' },
      { identifierID: email!.id, value: 'x@example.com' },
      { identifierID: email!.id, identifierType: 'email' },
    ]) {
      expectError(await patch(body), 400, 'validation_error');
    }
    expect((await me(user)).identifiers).toEqual([{ id: email!.id, value: 'refused@example.com', type: 'email', status: 'verified' }]);
    expect((await me(holder)).identifiers).toEqual([theirs]);
    // A status field is ignored: a changed value is pending whatever the client says.
    expectGeneric(await patch({ identifierID: email!.id, identifierType: 'email', value: 'refused.new@example.com', status: 'verified' }));
    expect((await me(user)).identifiers).toEqual([{ id: email!.id, value: 'refused.new@example.com', type: 'email', status: 'pending' }]);
  });

  it('refuses a process token and no token', async () => {
    const body = { identifierID: 'ide-1', identifierType: 'email', value: 'x@example.com' };
    expectError(await front('PATCH', '/v2/me/identifier', { body }), 401, 'missing_credentials');
    expectError(await front('PATCH', '/v2/me/identifier', { token: await processToken(), body }), 401, 'wrong_token_kind');
  });
});

describe('DELETE /v2/me/identifier', () => {
  it('removes an identifier named in the JSON body (as the SDK sends it) or the query string', async () => {
    const user = await signedIn('Remover', [['email', 'remover@example.com'], ['phone', '+4915100000001'], ['username', 'remover']]);
    const [email, phone, username] = (await me(user)).identifiers;
    expectGeneric(await front('DELETE', '/v2/me/identifier', { token: user.sessionToken, body: { identifierID: phone!.id } }));
    expectGeneric(await front('DELETE', `/v2/me/identifier?identifierID=${username!.id}`, { token: user.sessionToken }));
    expect((await me(user)).identifiers).toEqual([email]);
    expectError(await front('DELETE', '/v2/me/identifier', { token: user.sessionToken, body: { identifierID: phone!.id } }), 404, 'identifier_not_found');
  });

  it('keeps the last identifier (409 last_identifier)', async () => {
    const user = await signedIn('Last', [['email', 'last@example.com']]);
    const [email] = (await me(user)).identifiers;
    expectError(await front('DELETE', '/v2/me/identifier', { token: user.sessionToken, body: { identifierID: email!.id } }), 409, 'last_identifier');
    expect((await me(user)).identifiers).toEqual([email]);
  });

  it('of two concurrent removals of the last two identifiers, at least one identifier stays', async () => {
    const user = await signedIn('Racer', [['email', 'racer@example.com'], ['phone', '+4915100000002']]);
    const [a, b] = (await me(user)).identifiers;
    const results = await Promise.all([a, b].map((i) => front('DELETE', '/v2/me/identifier', { token: user.sessionToken, body: { identifierID: i!.id } })));
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    for (const r of results.filter((x) => x.status !== 200)) expectError(r, 409, 'last_identifier');
    const left = (await me(user)).identifiers;
    expect(left.length).toBe(2 - results.filter((r) => r.status === 200).length);
    expect(left.length).toBeGreaterThanOrEqual(1);
  });

  it("refuses another user's identifier, malformed IDs and a missing ID", async () => {
    const user = await signedIn('Deleter', [['email', 'deleter@example.com'], ['username', 'deleter']]);
    const holder = await signedIn('Holder', [['email', 'holder2@example.com'], ['username', 'holder2']]);
    const [theirs] = (await me(holder)).identifiers;
    const del = (body: unknown) => front('DELETE', '/v2/me/identifier', { token: user.sessionToken, body });
    expectError(await del({ identifierID: theirs!.id }), 404, 'identifier_not_found');
    expectError(await del({ identifierID: theirs!.id, userID: holder.userId }), 404, 'identifier_not_found');
    for (const body of [{}, { identifierID: 'cre-1' }, { identifierID: 7 }]) {
      expectError(await del(body), 400, 'validation_error');
    }
    expectError(await front('DELETE', '/v2/me/identifier', { token: user.sessionToken }), 400, 'validation_error');
    expect((await me(user)).identifiers).toHaveLength(2);
    expect((await me(holder)).identifiers).toHaveLength(2);
    expectError(await front('DELETE', '/v2/me/identifier', { token: await processToken(), body: { identifierID: theirs!.id } }), 401, 'wrong_token_kind');
    const stranger = await signedIn('Stranger', [['email', 'stranger-del@example.com']], other);
    expectError(await front('DELETE', '/v2/me/identifier', { token: stranger.sessionToken, body: { identifierID: theirs!.id } }), 401, 'project_mismatch');
  });
});

describe('DELETE /v2/me', () => {
  it('deletes the account: user, identifiers, passkeys; its sessions stop working and refreshing', async () => {
    const user = await signedIn('Leaver', [['email', 'leaver@example.com'], ['username', 'leaver']]);
    const second = await startSession(deps, { projectId: project.projectID, userId: user.userId, withRefreshToken: true });
    // A passkey (F3/F4), so the ceremony service holds something of the user.
    const start = await front('POST', '/v2/me/passkeys/append/start', { token: user.sessionToken, body: { clientInformation: { isUserVerifyingPlatformAuthenticatorAvailable: true } } });
    const { json } = new SoftAuthenticator({ transports: ['internal'] }).createFromOptions(start.body.attestationOptions, ORIGIN);
    expectGeneric(await front('POST', '/v2/me/passkeys/append/finish', { token: user.sessionToken, body: { attestationResponse: JSON.stringify(json), clientInformation: { isUserVerifyingPlatformAuthenticatorAvailable: true } } }));
    expect(await stack.db.collection('credentials').countDocuments({ projectId: project.projectID, userId: user.userId })).toBe(1);

    expectGeneric(await front('DELETE', '/v2/me', { token: user.sessionToken }));

    expectError(await back('GET', `/v2/users/${user.userId}`), 404, 'user_not_found');
    expect(await stack.db.collection('identifiers').countDocuments({ projectId: project.projectID, userId: user.userId })).toBe(0);
    expect(await stack.db.collection('credentials').countDocuments({ projectId: project.projectID, userId: user.userId })).toBe(0);
    const sessions = stack.db.collection<SessionRecord>('sessions');
    expect(await sessions.findOne({ _id: user.sessionId })).toMatchObject({ status: 'revoked', revokeReason: 'user_unavailable' });
    // Both sessions are over: their session tokens on /v2/me, their refresh tokens on /v2/me/refresh.
    for (const s of [user, second]) {
      expectError(await front('GET', '/v2/me', { token: s.sessionToken }), 401, 'session_ended');
      expectError(await front('POST', '/v2/me/refresh', { token: s.refreshToken!, body: {} }), 401, 'session_ended');
    }
    expectError(await front('DELETE', '/v2/me', { token: user.sessionToken }), 401, 'session_ended');
    // The identifiers are free for a new account.
    const again = await signedIn('Returner', [['email', 'leaver@example.com'], ['username', 'leaver']]);
    expect((await me(again)).identifiers.map((i) => i.value)).toEqual(['leaver@example.com', 'leaver']);
  });

  it("refuses no token, a process token and another project's session token; a userID in the body is ignored", async () => {
    const user = await signedIn('Stayer', [['email', 'stayer@example.com']]);
    expectError(await front('DELETE', '/v2/me'), 401, 'missing_credentials');
    expectError(await front('DELETE', '/v2/me', { token: await processToken() }), 401, 'wrong_token_kind');
    const stranger = await signedIn('Stranger', [['email', 'stranger-leave@example.com']], other);
    expectError(await front('DELETE', '/v2/me', { token: stranger.sessionToken }), 401, 'project_mismatch');
    expect((await me(user)).id).toBe(user.userId);
    expect((await back('GET', `/v2/users/${stranger.userId}`, undefined, other)).status).toBe(200);
    // Only the session's own user is deleted, whoever the body names.
    const caller = await signedIn('Caller', [['email', 'caller-leave@example.com']]);
    expectGeneric(await front('DELETE', '/v2/me', { token: caller.sessionToken, body: { userID: user.userId } }));
    expect((await back('GET', `/v2/users/${caller.userId}`)).status).toBe(404);
    expect((await me(user)).id).toBe(user.userId);
  });
});

/** Polls the SMTP server for the newest mail to `address` and returns the 6-digit code in it. */
async function codeSentTo(address: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const mail = [...smtp.received].reverse().find((m) => toOf(m) === address);
    const code = mail?.text?.match(/\b([0-9]{6})\b/)?.[1];
    if (code) return code;
    if (Date.now() > deadline) throw new Error(`no code mailed to ${address}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
