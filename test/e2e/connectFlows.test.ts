/**
 * Connect flows end to end (F5–F10 and companions): the page's calls through the real gateway
 * with the web SDK's headers (X-Corbado-ProjectID, x-corbado-process-id), the application
 * server's connect tokens through the backend API, the service's software authenticator playing
 * the browser, and every way a token can be misused.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator, type SoftCredential } from '../kit/softAuthenticator.js';
import { openProjectAdmin, type ProjectAdmin } from '../../services/connect/src/cli/projectAdmin.js';
import { signToken } from '../../services/connect/src/projects/domain/signToken.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';
import { diffCounter, parseMetrics, RPCS, type Sample } from '../load/diffMetrics.js';

const ORIGIN = 'http://localhost:3000';
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';

let stack: Stack;
let project: ProjectJson;
let other: ProjectJson;
let admin: ProjectAdmin;

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('connect-flows-e2e', [ORIGIN]);
  other = await stack.createProject('connect-flows-e2e-other', ['http://localhost:4000']);
  admin = await openProjectAdmin({
    mongodbUri: stack.env.MONGODB_URI,
    masterKey: parseMasterKey(stack.env.MASTER_KEY),
    urls: { frontendApiUrl: stack.env.FRONTEND_API_URL, backendApiUrl: stack.env.BACKEND_API_URL },
  });
}, 120_000);
afterAll(async () => {
  await admin?.close();
  await stack?.stop();
});

type Rsp = { status: number; body: Record<string, any>; headers: Headers };

/** A frontend call as the web SDK makes it. */
async function front(path: string, body: unknown, o: { as?: ProjectJson; process?: string; headers?: Record<string, string> } = {}): Promise<Rsp> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-corbado-projectid': (o.as ?? project).projectID,
    origin: ORIGIN,
    'user-agent': UA,
    ...(o.process ? { 'x-corbado-process-id': o.process } : {}),
    ...o.headers,
  };
  const res = await fetch(`${stack.frontendUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {}, headers: res.headers };
}

async function back(path: string, init: { method?: string; body?: unknown; as?: ProjectJson } = {}): Promise<Rsp> {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method: init.method ?? 'POST',
    headers: { authorization: basic(init.as ?? project), 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
}

function expectError(r: Rsp, status: number, type: string) {
  expect({ status: r.status, type: r.body.error?.type }).toEqual({ status, type });
  expect(r.body.httpStatusCode).toBe(status);
}

const capable = (extra: Record<string, unknown> = {}) => ({
  bluetoothAvailable: false,
  visitorId: 'visitor-1',
  isUserVerifyingPlatformAuthenticatorAvailable: true,
  isConditionalMediationAvailable: true,
  clientCapabilities: { conditionalCreate: false, conditionalGet: true, conditionalMediation: true, hybridTransport: true, passkeyPlatformAuthenticator: true, userVerifyingPlatformAuthenticator: true, 'extension:credProps': true },
  javaScriptHighEntropy: { platform: 'macOS', platformVersion: '15.0.0', mobile: false },
  webdriver: false,
  privateMode: false,
  ...extra,
});

async function connectToken(type: string, identifier: string, as: ProjectJson = project, lifetime?: number): Promise<{ id: string; secret: string }> {
  const r = await back('/v2/connectTokens', { as, body: { type, data: { identifier, displayName: 'Test User' }, ...(lifetime ? { maxLifetimeInSeconds: lifetime } : {}) } });
  expect(r.status).toBe(200);
  return { id: r.body.id, secret: r.body.secret };
}

async function init(flow: 'login' | 'append' | 'manage', clientInformation: Record<string, unknown> = capable(), extra: Record<string, unknown> = {}, as?: ProjectJson): Promise<Rsp> {
  return front(`/v2/connect/${flow}/init`, { clientInformation, flags: {}, ...extra }, { as });
}

const processOf = (r: Rsp) => (r.body.token ?? r.body.processID) as string;

async function jwks(as: ProjectJson = project) {
  const r = await fetch(`${stack.frontendUrl}/.well-known/jwks`, { headers: { 'x-corbado-projectid': as.projectID } });
  return createLocalJWKSet((await r.json()) as JSONWebKeySet);
}

/** Runs an append with the software authenticator; returns the credential the authenticator now holds. */
async function appendPasskey(identifier: string, auth = new SoftAuthenticator({ transports: ['internal'], flags: { be: true, bs: true } })): Promise<{ credential: SoftCredential; finish: Rsp }> {
  const process = processOf(await init('append'));
  const token = await connectToken('passkey-append', identifier);
  const start = await front('/v2/connect/append/start', { appendTokenValue: token.secret, loadedMs: 120 }, { process });
  expect(start.status).toBe(200);
  expect(start.body.attestationOptions).not.toBe('');
  const { json, credential } = auth.createFromOptions(start.body.attestationOptions, ORIGIN);
  const finish = await front('/v2/connect/append/finish', { attestationResponse: JSON.stringify(json), completionType: 'manual' }, { process });
  return { credential, finish };
}

async function loginWith(identifier: string, credential: SoftCredential, auth = new SoftAuthenticator()): Promise<Rsp> {
  const process = processOf(await init('login'));
  const start = await front('/v2/connect/login/start', { identifier, source: 'text-field', loadedMs: 300 }, { process });
  expect(start.status).toBe(200);
  const json = auth.getFromOptions(start.body.assertionOptions, credential, ORIGIN);
  return front('/v2/connect/login/finish', { isConditionalUI: false, assertionResponse: JSON.stringify(json), loadedMs: 900 }, { process });
}

async function cli(...args: string[]): Promise<Record<string, any>> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'services/connect/src/cli/project.ts', ...args], { env: { ...process.env, ...stack.env } });
  return JSON.parse(stdout) as Record<string, any>;
}

describe('F5–F7: init', () => {
  it('starts a login process with every field of the interface', async () => {
    const r = await front('/v2/connect/login/init', { clientInformation: capable(), flags: { 'client-flag': 'on' } });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['conditionalUIChallenge', 'expiresAt', 'flags', 'frontendApiUrl', 'loginAllowed', 'newClientEnvHandle', 'token']);
    expect(r.body.token).toMatch(JWT);
    const claims = (await jwtVerify(r.body.token, await jwks(), { issuer: project.frontendApiUrl, audience: project.projectID })).payload;
    expect(claims.kind).toBe('process');
    expect(claims.exp).toBe(r.body.expiresAt);
    const now = Date.now() / 1000;
    expect(r.body.expiresAt).toBeGreaterThan(now + 200);
    expect(r.body.expiresAt).toBeLessThanOrEqual(now + 301);
    expect(r.body.frontendApiUrl).toBe(project.frontendApiUrl);
    expect(r.body.loginAllowed).toBe(true);
    expect(r.body.flags).toEqual({ 'client-flag': 'on', 'conditional-ui-allowed': 'true' });
    expect(r.body.newClientEnvHandle).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const challenge = JSON.parse(r.body.conditionalUIChallenge);
    expect(challenge.publicKey.rpId).toBe('localhost');
    expect(challenge.publicKey.allowCredentials ?? []).toEqual([]);
  });

  it('keeps a handle it issued and replaces one it did not', async () => {
    const first = await init('login');
    const handle = first.body.newClientEnvHandle as string;
    const again = await init('append', capable({ clientEnvHandle: handle, clientEnvHandleMeta: { ts: Date.now(), source: 'ls' } }));
    expect(again.status).toBe(200);
    expect(again.body).not.toHaveProperty('newClientEnvHandle');
    const forged = await init('manage', capable({ clientEnvHandle: 'made-up-handle' }));
    expect(forged.body.newClientEnvHandle).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(forged.body.newClientEnvHandle).not.toBe('made-up-handle');
  });

  it('decides by the client: no platform authenticator means no append and no conditional UI', async () => {
    const plain = { isUserVerifyingPlatformAuthenticatorAvailable: false, isConditionalMediationAvailable: false, clientCapabilities: { hybridTransport: true } };
    const login = await init('login', plain);
    expect(login.body.loginAllowed).toBe(true);
    expect(login.body).not.toHaveProperty('conditionalUIChallenge');
    // A stale "true" the web SDK stored earlier is overwritten, so a connect UI does not start autofill.
    expect(login.body.flags['conditional-ui-allowed']).toBe('false');
    expect((await init('append', plain)).body.appendAllowed).toBe(false);
    expect((await init('manage', plain)).body.manageAllowed).toBe(true);
    const nothing = await init('login', { isUserVerifyingPlatformAuthenticatorAvailable: false, isConditionalMediationAvailable: false });
    expect(nothing.body.loginAllowed).toBe(false);
  });

  it('honours the roll-out: invited only, with invitations from the CLI; project flags win', async () => {
    const gated = await stack.createProject('connect-flows-e2e-gated', [ORIGIN]);
    await cli('connect-settings', '--project', gated.projectID, '--rollout', 'invited', '--flag', 'mode=project');
    const uninvited = await init('login', capable(), {}, gated);
    expect(uninvited.body.loginAllowed).toBe(false);
    const { invitationToken } = await cli('invite', '--project', gated.projectID, '--days', '1');
    const invited = await front('/v2/connect/login/init', { clientInformation: capable(), flags: { mode: 'client', other: 'x' }, invitationToken }, { as: gated });
    expect(invited.body.loginAllowed).toBe(true);
    expect(invited.body.flags).toEqual({ mode: 'project', other: 'x', 'conditional-ui-allowed': 'true' });
    // An invitation of another project is no invitation here.
    const { invitationToken: foreign } = await cli('invite', '--project', other.projectID);
    expect((await init('append', capable(), { invitationToken: foreign }, gated)).body.appendAllowed).toBe(false);
    await cli('connect-settings', '--project', gated.projectID, '--flag', 'conditional-ui-allowed=false');
    const overridden = await front('/v2/connect/login/init', { clientInformation: capable(), flags: {}, invitationToken }, { as: gated });
    expect(overridden.body.conditionalUIChallenge).toEqual(expect.any(String));
    expect(overridden.body.flags).toEqual({ 'conditional-ui-allowed': 'false' });
    await cli('connect-settings', '--project', gated.projectID, '--rollout', 'nobody');
    expect((await init('manage', capable(), { invitationToken }, gated)).body.manageAllowed).toBe(false);
  });

  it('refuses malformed init bodies with 400 and the field', async () => {
    const noFlags = await front('/v2/connect/login/init', { clientInformation: capable() });
    expectError(noFlags, 400, 'validation_error');
    expect(noFlags.body.error.validation.map((v: { field: string }) => v.field)).toContain('flags');
    expectError(await front('/v2/connect/append/init', { flags: {} }), 400, 'validation_error');
    const badFlag = await front('/v2/connect/manage/init', { clientInformation: capable(), flags: { n: 1 } });
    expectError(badFlag, 400, 'validation_error');
    expect(badFlag.body.error.validation[0].field).toBe('flags.n');
    expectError(await front('/v2/connect/login/init', { clientInformation: { isNative: 'yes' }, flags: {} }), 400, 'validation_error');
    expectError(await front('/v2/connect/append/init', { clientInformation: capable(), flags: {}, situation: 'anywhere' }), 400, 'validation_error');
  });
});

describe('append, login and management', () => {
  let alice: SoftCredential;

  it('appends a passkey with a connect token and creates the unknown user', async () => {
    const { credential, finish } = await appendPasskey('Alice@Example.com');
    expect(finish.status).toBe(200);
    expect(finish.body.passkeyOperation).toMatchObject({ operationType: 'append', identifierValue: 'alice@example.com', identifierType: 'email', ceremonyType: 'local' });
    alice = credential;
    const ids = await back(`/v2/identifiers?filter[]=identifierValue:eq:alice@example.com`, { method: 'GET' });
    expect(ids.body.identifiers).toHaveLength(1);
    expect(ids.body.identifiers[0]).toMatchObject({ type: 'email', value: 'alice@example.com', status: 'verified' });
  });

  it('logs in with F8/F9: session and signedPasskeyData verify against the JWKS', async () => {
    const r = await loginWith('alice@example.com', alice);
    expect(r.status).toBe(200);
    expect(r.body.passkeyOperation).toMatchObject({ operationType: 'verify', identifierValue: 'alice@example.com', identifierType: 'email', ceremonyType: 'local' });
    const keys = await jwks();
    const session = (await jwtVerify(r.body.session, keys, { issuer: project.frontendApiUrl, audience: project.projectID })).payload;
    expect(session).toMatchObject({ kind: 'session', sub: expect.stringMatching(/^usr-[0-9]+$/), name: 'Test User' });
    const data = (await jwtVerify(r.body.signedPasskeyData, keys, { issuer: project.frontendApiUrl })).payload;
    expect(data).toMatchObject({ kind: 'passkey_data', sub: session.sub, username: 'alice@example.com' });
    expect(r.body).not.toHaveProperty('fallbackOperationError');
  });

  it('answers F8 with the assertion options over the user\'s passkeys', async () => {
    const process = processOf(await init('login'));
    const r = await front('/v2/connect/login/start', { identifier: 'alice@example.com', source: 'one-tap', loadedMs: 10, identifierHintAvailable: true, oneTapMeta: { ts: Date.now(), source: 'ls' }, loginConnectToken: 'opaque' }, { process });
    expect(r.status).toBe(200);
    expect(r.body.fallbackOperationError).toEqual({ initFallback: false });
    expect(typeof r.body.isCDA).toBe('boolean');
    expect(JSON.parse(r.body.assertionOptions).publicKey.allowCredentials.map((c: { id: string }) => c.id)).toEqual([alice.id]);
  });

  it('logs in with conditional UI (the challenge of F5) and restores the one-tap hint as newClientState', async () => {
    const first = await init('login');
    const json = new SoftAuthenticator().getFromOptions(first.body.conditionalUIChallenge, alice, ORIGIN);
    const r = await front('/v2/connect/login/finish', { isConditionalUI: true, assertionResponse: JSON.stringify(json) }, { process: processOf(first) });
    expect(r.status).toBe(200);
    expect(r.body.session).toMatch(JWT);
    expect(r.body.passkeyOperation).toMatchObject({ operationType: 'verify', identifierValue: 'alice@example.com', identifierType: 'email' });
    const next = await init('login', capable({ clientEnvHandle: first.body.newClientEnvHandle }));
    const state = JSON.parse(Buffer.from(next.body.newClientState, 'base64').toString('utf8'));
    expect(state.lastLogin.data).toEqual({ operationType: 'verify', identifierValue: 'alice@example.com', identifierType: 'email', ceremonyType: 'local' });
    expect(state.lastLogin.ts).toBeGreaterThan(Date.now() - 60_000);
  });

  it('falls back with 200 for an unknown identifier and for a user without passkeys, alike', async () => {
    const process = processOf(await init('login'));
    const unknown = await front('/v2/connect/login/start', { identifier: 'nobody@example.com', source: 'text-field', loadedMs: 5 }, { process });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ assertionOptions: '', isCDA: false, fallbackOperationError: { initFallback: true, identifier: 'nobody@example.com', error: { code: 'passkey_login_unavailable', message: expect.any(String) } } });
    const user = await back('/v2/users', { body: { fullName: 'No Passkey', status: 'active' } });
    await back(`/v2/users/${user.body.userID}/identifiers`, { body: { identifierType: 'email', identifierValue: 'nopasskey@example.com', status: 'verified' } });
    const without = await front('/v2/connect/login/start', { identifier: 'nopasskey@example.com', source: 'error-soft', loadedMs: 5 }, { process });
    expect(without.body.fallbackOperationError).toEqual({ ...unknown.body.fallbackOperationError, identifier: 'nopasskey@example.com' });
    const junk = await front('/v2/connect/login/start', { identifier: 'not an identifier!', source: 'error-hard', loadedMs: 5 }, { process });
    expect(junk.body.fallbackOperationError.initFallback).toBe(true);
  });

  it('lists and deletes passkeys with connect tokens, lists again with the same list token; a deleted passkey is 404', async () => {
    const process = processOf(await init('manage'));
    const listToken = await connectToken('passkey-list', 'alice@example.com');
    const list = await front('/v2/connect/manage/list', { connectToken: listToken.secret }, { process });
    expect(list.status).toBe(200);
    expect(list.body.rpID).toBe('localhost');
    expect(list.body.userID).toBe(alice.userHandle);
    expect(list.body.passkeys).toHaveLength(1);
    const pk = list.body.passkeys[0];
    expect(pk).toMatchObject({ id: expect.stringMatching(/^cre-[0-9]+$/), credentialID: alice.id, status: 'active', backupEligible: true, tags: [] });
    expect(pk.createdMs).toBeGreaterThan(Date.now() - 600_000);
    expect(Object.keys(pk.aaguidDetails)).toEqual(expect.arrayContaining(['name', 'iconLight', 'iconDark']));

    const wrong = await front('/v2/connect/manage/delete', { connectToken: (await connectToken('passkey-delete', 'alice@example.com')).secret, credentialID: 'cre-1' }, { process });
    expectError(wrong, 404, 'credential_not_found');
    const del = await front('/v2/connect/manage/delete', { connectToken: (await connectToken('passkey-delete', 'alice@example.com')).secret, credentialID: alice.id }, { process });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ credentialID: alice.id });
    // The passkey list of @corbado/connect-react lists again with the token it listed with.
    const after = await front('/v2/connect/manage/list', { connectToken: listToken.secret }, { process });
    expect(after.status).toBe(200);
    expect(after.body.passkeys).toEqual([]);
    // Only for the process that used it first; the application sees it consumed.
    expectError(await front('/v2/connect/manage/list', { connectToken: listToken.secret }, { process: processOf(await init('manage')) }), 409, 'connect_token_consumed');
    const listed = await back('/v2/connectTokens?filter[]=tokenType:eq:passkey-list&filter[]=identifier:eq:alice@example.com', { method: 'GET' });
    expect(listed.body.connectTokens.map((t: { connectTokenStatus: string }) => t.connectTokenStatus)).toEqual(['consumed']);

    const login = await init('login');
    const json = new SoftAuthenticator().getFromOptions(login.body.conditionalUIChallenge, alice, ORIGIN);
    const gone = await front('/v2/connect/login/finish', { isConditionalUI: true, assertionResponse: JSON.stringify(json) }, { process: processOf(login) });
    // web-core 2.x (connect-react 0.2.x) falls back on a 404 of login/finish; 3.x returns it as an error.
    expectError(gone, 404, 'credential_deleted');
    expect(gone.body).not.toHaveProperty('session');
  });

  it('refuses a typed login with a passkey deleted since the options were given with 404 credential_deleted', async () => {
    const first = await appendPasskey('frank@example.com');
    const second = await appendPasskey('frank@example.com');
    expect([first.finish.status, second.finish.status]).toEqual([200, 200]);
    const process = processOf(await init('login'));
    const start = await front('/v2/connect/login/start', { identifier: 'frank@example.com', source: 'text-field', loadedMs: 300 }, { process });
    expect(JSON.parse(start.body.assertionOptions).publicKey.allowCredentials.map((c: { id: string }) => c.id).sort()).toEqual([first.credential.id, second.credential.id].sort());
    const manage = processOf(await init('manage'));
    const del = await front('/v2/connect/manage/delete', { connectToken: (await connectToken('passkey-delete', 'frank@example.com')).secret, credentialID: first.credential.id }, { process: manage });
    expect(del.status).toBe(200);
    const json = new SoftAuthenticator().getFromOptions(start.body.assertionOptions, first.credential, ORIGIN);
    const gone = await front('/v2/connect/login/finish', { isConditionalUI: false, assertionResponse: JSON.stringify(json), loadedMs: 900 }, { process });
    expectError(gone, 404, 'credential_deleted');
    // The remaining passkey still logs in.
    expect((await loginWith('frank@example.com', second.credential)).status).toBe(200);
  });

  it('finishes an append without completionType, as web-core 2.x sends it', async () => {
    const process = processOf(await init('append'));
    const token = await connectToken('passkey-append', 'grace@example.com');
    const start = await front('/v2/connect/append/start', { appendTokenValue: token.secret, loadedMs: 120 }, { process });
    const { json } = new SoftAuthenticator().createFromOptions(start.body.attestationOptions, ORIGIN);
    const finish = await front('/v2/connect/append/finish', { attestationResponse: JSON.stringify(json) }, { process });
    expect(finish.status).toBe(200);
    expect(finish.body.passkeyOperation).toMatchObject({ operationType: 'append', identifierValue: 'grace@example.com', identifierType: 'email' });
    const tokens = await back('/v2/connectTokens?filter[]=identifier:eq:grace@example.com', { method: 'GET' });
    expect(tokens.body.connectTokens.map((t: { connectTokenStatus: string }) => t.connectTokenStatus)).toEqual(['consumed']);
  });

  it('adds a passkey in a manage process (the connect-react passkey list\'s "Add a passkey") and lists it with the same list token', async () => {
    const process = processOf(await init('manage'));
    const listToken = await connectToken('passkey-list', 'heidi@example.com');
    expect((await front('/v2/connect/manage/list', { connectToken: listToken.secret }, { process })).body.passkeys).toEqual([]);
    const start = await front('/v2/connect/append/start', { appendTokenValue: (await connectToken('passkey-append', 'heidi@example.com')).secret, loadedMs: 1, forcePasskeyAppend: true }, { process });
    expect(start.status).toBe(200);
    const { json, credential } = new SoftAuthenticator().createFromOptions(start.body.attestationOptions, ORIGIN);
    const finish = await front('/v2/connect/append/finish', { attestationResponse: JSON.stringify(json) }, { process });
    expect(finish.status).toBe(200);
    const after = await front('/v2/connect/manage/list', { connectToken: listToken.secret }, { process });
    expect(after.body.passkeys.map((p: { credentialID: string }) => p.credentialID)).toEqual([credential.id]);
  });

  it('lists nothing for an identifier it does not know', async () => {
    const process = processOf(await init('manage'));
    const r = await front('/v2/connect/manage/list', { connectToken: (await connectToken('passkey-list', 'stranger@example.com')).secret }, { process });
    expect(r.body).toEqual({ passkeys: [], rpID: 'localhost', userID: '' });
  });
});

describe('events and process hygiene', () => {
  it('records an aborted append (204), which cools the next offer down unless the user insists', async () => {
    const process = processOf(await init('append'));
    const start = await front('/v2/connect/append/start', { appendTokenValue: (await connectToken('passkey-append', 'bob@example.com')).secret, loadedMs: 1 }, { process });
    const challenge = JSON.parse(start.body.attestationOptions).publicKey.challenge;
    const event = await front('/v2/connect/events', { eventType: 'append-explicit-abort', challenge }, { process });
    expect(event.status).toBe(204);
    const again = processOf(await init('append'));
    const cooled = await front('/v2/connect/append/start', { appendTokenValue: (await connectToken('passkey-append', 'bob@example.com')).secret, loadedMs: 1 }, { process: again });
    expect(cooled.status).toBe(200);
    expect(cooled.body.attestationOptions).toBe('');
    const forced = await front('/v2/connect/append/start', { appendTokenValue: (await connectToken('passkey-append', 'bob@example.com')).secret, loadedMs: 1, forcePasskeyAppend: true }, { process: again });
    expect(forced.body.attestationOptions).not.toBe('');
  });

  it('accepts every event type the web SDK sends and refuses others', async () => {
    const process = processOf(await init('login'));
    for (const eventType of ['login-error', 'login-one-tap-switch', 'login-error-untyped', 'append-learn-more', 'manage-error-unexpected']) {
      expect((await front('/v2/connect/events', { eventType, message: 'NotAllowedError' }, { process })).status).toBe(204);
    }
    expectError(await front('/v2/connect/events', { eventType: 'made-up' }, { process }), 400, 'validation_error');
  });

  it('clears a process: later calls with its token fail', async () => {
    const process = processOf(await init('login'));
    const r = await front('/v2/connect/process/clear', { processId: process });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ processId: process });
    expectError(await front('/v2/connect/login/start', { identifier: 'a@example.com', source: 'text-field', loadedMs: 1 }, { process }), 409, 'process_cleared');
    expectError(await front('/v2/connect/process/clear', { processId: 'not-a-token' }), 400, 'invalid_process_token');
  });
});

describe('token misuse', () => {
  it('refuses an expired process token (401), a process token of another project (401) and a missing one (401)', async () => {
    const past = Math.floor(Date.now() / 1000) - 5;
    const expired = await signToken(admin.deps, project.projectID, { kind: 'process', sub: 'cpr-1', exp: past });
    expectError(await front('/v2/connect/login/start', { identifier: 'a@example.com', source: 'text-field', loadedMs: 1 }, { process: expired }), 401, 'token_expired');
    const foreign = processOf(await init('login', capable(), {}, other));
    expectError(await front('/v2/connect/login/start', { identifier: 'a@example.com', source: 'text-field', loadedMs: 1 }, { process: foreign }), 401, 'project_mismatch');
    expectError(await front('/v2/connect/login/start', { identifier: 'a@example.com', source: 'text-field', loadedMs: 1 }), 401, 'missing_credentials');
  });

  it('refuses a process of another flow (403) and finishing what was not started (409)', async () => {
    const login = processOf(await init('login'));
    expectError(await front('/v2/connect/append/start', { appendTokenValue: 'x', loadedMs: 1 }, { process: login }), 403, 'wrong_process');
    expectError(await front('/v2/connect/login/finish', { isConditionalUI: false, assertionResponse: '{}' }, { process: login }), 409, 'login_not_started');
    const append = processOf(await init('append'));
    expectError(await front('/v2/connect/append/finish', { attestationResponse: '{}', completionType: 'auto' }, { process: append }), 409, 'append_not_started');
  });

  it('refuses connect tokens that are unknown, of another type or project, expired, reused or held by another process', async () => {
    const process = processOf(await init('append'));
    const start = (secret: string, p = process) => front('/v2/connect/append/start', { appendTokenValue: secret, loadedMs: 1 }, { process: p });
    expectError(await start('ctk_unknown'), 403, 'invalid_connect_token');
    expectError(await start((await connectToken('passkey-list', 'carol@example.com')).secret), 403, 'invalid_connect_token');
    expectError(await start((await connectToken('passkey-append', 'carol@example.com', other)).secret), 403, 'invalid_connect_token');
    const short = await connectToken('passkey-append', 'carol@example.com', project, 1);
    await new Promise((r) => setTimeout(r, 1100));
    expectError(await start(short.secret), 410, 'connect_token_expired');
    const held = await connectToken('passkey-append', 'carol@example.com');
    expect((await start(held.secret)).status).toBe(200);
    expectError(await start(held.secret, processOf(await init('append'))), 403, 'connect_token_in_use');

    const { finish } = await appendPasskey('dave@example.com');
    expect(finish.status).toBe(200);
    const tokens = await back('/v2/connectTokens?filter[]=identifier:eq:dave@example.com', { method: 'GET' });
    expect(tokens.body.connectTokens.map((t: { connectTokenStatus: string }) => t.connectTokenStatus)).toEqual(['consumed']);
  });

  it('keeps a token usable after a refused attestation (manual-retry) and single-use after success', async () => {
    const process = processOf(await init('append'));
    const token = await connectToken('passkey-append', 'erin@example.com');
    const start = await front('/v2/connect/append/start', { appendTokenValue: token.secret, loadedMs: 1 }, { process });
    const auth = new SoftAuthenticator();
    const { json: wrongOrigin } = auth.createFromOptions(start.body.attestationOptions, 'https://evil.example');
    const refused = await front('/v2/connect/append/finish', { attestationResponse: JSON.stringify(wrongOrigin), completionType: 'manual' }, { process });
    expect(refused.status).toBe(400);
    // The refused attempt cools plain offers down; the user asking again (forcePasskeyAppend) still gets one.
    const retry = await front('/v2/connect/append/start', { appendTokenValue: token.secret, loadedMs: 2, forcePasskeyAppend: true }, { process });
    const { json } = auth.createFromOptions(retry.body.attestationOptions, ORIGIN);
    const ok = await front('/v2/connect/append/finish', { attestationResponse: JSON.stringify(json), completionType: 'manual-retry', customData: { campaign: 'spring' } }, { process });
    expect(ok.status).toBe(200);
    expectError(await front('/v2/connect/append/start', { appendTokenValue: token.secret, loadedMs: 3 }, { process }), 409, 'connect_token_consumed');
  });

  it('refuses completionType and source outside their enumerations with 400', async () => {
    const append = processOf(await init('append'));
    const bad = await front('/v2/connect/append/finish', { attestationResponse: '{}', completionType: 'sometimes' }, { process: append });
    expectError(bad, 400, 'validation_error');
    expect(bad.body.error.validation.map((v: { field: string }) => v.field)).toEqual(['completionType']);
    const login = processOf(await init('login'));
    const src = await front('/v2/connect/login/start', { identifier: 'a@example.com', source: 'somewhere', loadedMs: 1 }, { process: login });
    expectError(src, 400, 'validation_error');
    expect(src.body.error.validation.map((v: { field: string }) => v.field)).toEqual(['source']);
    expectError(await front('/v2/connect/login/start', { identifier: 'a@example.com', source: 'text-field' }, { process: login }), 400, 'validation_error');
  });
});

describe('CORS for the connect endpoints', () => {
  const preflight = (origin: string) =>
    fetch(`${stack.frontendUrl}/v2/connect/login/init`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-corbado-projectid,x-corbado-process-id,x-corbado-sdk,x-corbado-client-timezone' },
    });

  it('grants a preflight from an allowed origin with the SDK headers and credentials', async () => {
    const r = await preflight(ORIGIN);
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');
    for (const h of ['x-corbado-projectid', 'x-corbado-process-id', 'x-corbado-sdk', 'x-corbado-client-timezone']) expect(r.headers.get('access-control-allow-headers')).toContain(h);
  });

  it('refuses a preflight from any other origin, and the real request gets no CORS grant', async () => {
    const r = await preflight('https://evil.example');
    expect(r.status).toBe(403);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    const real = await front('/v2/connect/login/init', { clientInformation: capable(), flags: {} }, { headers: { origin: 'https://evil.example' } });
    expect(real.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the connect login calls one way', () => {
  /** RPCs a process served, by method, from its /metrics (what `npm run bench` counts). */
  async function rpcsServed(port: number): Promise<Sample[]> {
    return parseMetrics(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
  }
  const grownBy = (before: Sample[], after: Sample[]) => diffCounter(before, after, RPCS, 'method').by;
  const SIGN = 'passkeyauth.connect.v1.ProjectService/SignPasskeyData';

  it('makes no call back into connect (no SignPasskeyData): the ceremony verifies, connect signs; B5 with signPasskeyData still has it signed', async () => {
    const { credential } = await appendPasskey('oneway@example.com');
    const before = { connect: await rpcsServed(stack.ports.connect), ceremony: await rpcsServed(stack.ports.ceremony) };
    const login = await loginWith('oneway@example.com', credential);
    expect(login.status).toBe(200);
    const after = { connect: await rpcsServed(stack.ports.connect), ceremony: await rpcsServed(stack.ports.ceremony) };
    const connect = grownBy(before.connect, after.connect);
    const ceremony = grownBy(before.ceremony, after.ceremony);
    // F5 init (with the conditional-UI challenge), F8 start, F9 finish: connect → ceremony, three calls, one each.
    expect(ceremony).toEqual({
      'passkeyauth.ceremony.v1.CeremonyService/StartMediation': 1,
      'passkeyauth.ceremony.v1.CeremonyService/StartLogin': 1,
      'passkeyauth.ceremony.v1.CeremonyService/FinishLogin': 1,
    });
    expect(connect[SIGN]).toBeUndefined();
    // signedPasskeyData is still the project's JWT of the passkey used, as the application's server verifies it.
    const claims = (await jwtVerify(login.body.signedPasskeyData, await jwks(), { issuer: stack.frontendUrl, audience: project.projectID })).payload;
    expect(claims).toMatchObject({ kind: 'passkey_data', username: 'oneway@example.com', id: expect.stringMatching(/^cre-/) });

    // The backend API's B5 asking for signedPasskeyData is the one caller left of SignPasskeyData.
    const userID = claims.sub!;
    const processID = 'oneway-b5';
    const start = await back('/v2/passkey/login/start', { body: { userID, processID, clientInformation: backendClientInformation, crossDeviceAuthenticationStrategy: 'standard' } });
    expect(start.status).toBe(200);
    const assertion = new SoftAuthenticator().getFromOptions(start.body.assertionOptions, credential, ORIGIN);
    const signedBefore = await rpcsServed(stack.ports.connect);
    const b5 = await back('/v2/passkey/login/finish', { body: { userID, processID, assertionResponse: JSON.stringify(assertion), trackingID: 'oneway', clientInformation: backendClientInformation, signPasskeyData: true } });
    expect(b5.status).toBe(200);
    expect(b5.body.signedPasskeyData).toMatch(JWT);
    expect(grownBy(signedBefore, await rpcsServed(stack.ports.connect))[SIGN]).toBe(1);
  });
});
