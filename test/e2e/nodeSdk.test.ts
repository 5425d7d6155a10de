/**
 * Drop-in test: the published Node SDK (@corbado/node-sdk), unchanged, configured with our project
 * ID, API secret and URLs, manages users and identifiers against our gateway and validates our
 * session tokens against our JWKS.
 */
import { Config, SDK } from '@corbado/node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator, type SoftCredential } from '../kit/softAuthenticator.js';
import { openProjectAdmin, type ProjectAdmin } from '../../services/connect/src/cli/projectAdmin.js';
import { signToken } from '../../services/connect/src/projects/domain/signToken.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';

let stack: Stack;
let project: ProjectJson;
let sdk: SDK;
let admin: ProjectAdmin;

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('node-sdk-e2e', [ORIGIN]);
  sdk = new SDK(new Config(project.projectID, project.apiSecret, project.frontendApiUrl, project.backendApiUrl));
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

type Rsp = { status: number; body: Record<string, any> };

/** A frontend connect call as the web SDK makes it (from test/e2e/connectFlows.test.ts). */
async function front(path: string, body: unknown, processToken?: string): Promise<Rsp> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-corbado-projectid': project.projectID, origin: ORIGIN, ...(processToken ? { 'x-corbado-process-id': processToken } : {}) };
  const res = await fetch(`${stack.frontendUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const clientInformation = {
  bluetoothAvailable: false,
  isUserVerifyingPlatformAuthenticatorAvailable: true,
  isConditionalMediationAvailable: true,
  clientCapabilities: { conditionalGet: true, conditionalMediation: true, hybridTransport: true, passkeyPlatformAuthenticator: true, userVerifyingPlatformAuthenticator: true },
  webdriver: false,
  privateMode: false,
};

async function init(flow: 'login' | 'append'): Promise<string> {
  const r = await front(`/v2/connect/${flow}/init`, { clientInformation, flags: {} });
  expect(r.status).toBe(200);
  return (r.body.token ?? r.body.processID) as string;
}

/** Appends a passkey for the identifier (connect token with displayName → the user's full name). */
async function appendPasskey(identifier: string, displayName: string): Promise<SoftCredential> {
  const processToken = await init('append');
  const res = await fetch(`${stack.backendUrl}/v2/connectTokens`, {
    method: 'POST',
    headers: { authorization: basic(project), 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'passkey-append', data: { identifier, displayName } }),
  });
  const token = (await res.json()) as { secret: string };
  const start = await front('/v2/connect/append/start', { appendTokenValue: token.secret, loadedMs: 120 }, processToken);
  expect(start.status).toBe(200);
  const { json, credential } = new SoftAuthenticator({ transports: ['internal'], flags: { be: true, bs: true } }).createFromOptions(start.body.attestationOptions, ORIGIN);
  const finish = await front('/v2/connect/append/finish', { attestationResponse: JSON.stringify(json), completionType: 'manual' }, processToken);
  expect(finish.status).toBe(200);
  return credential;
}

/** Logs in with the passkey (F8/F9); the answer's `session` is the session token. */
async function loginWith(identifier: string, credential: SoftCredential): Promise<string> {
  const processToken = await init('login');
  const start = await front('/v2/connect/login/start', { identifier, source: 'text-field', loadedMs: 300 }, processToken);
  expect(start.status).toBe(200);
  const json = new SoftAuthenticator().getFromOptions(start.body.assertionOptions, credential, ORIGIN);
  const finish = await front('/v2/connect/login/finish', { isConditionalUI: false, assertionResponse: JSON.stringify(json), loadedMs: 900 }, processToken);
  expect(finish.status).toBe(200);
  return finish.body.session as string;
}

describe('@corbado/node-sdk against the gateway', () => {
  it('accepts our project ID and API secret shapes', () => {
    expect(project.projectID).toMatch(/^pro-[0-9]+$/);
    expect(project.apiSecret.startsWith('corbado1_')).toBe(true);
  });

  it('creates, gets and deletes a user', async () => {
    const user = await sdk.users().createActiveByName('Grace Hopper');
    expect(user.userID).toMatch(/^usr-[0-9]+$/);
    expect(user.fullName).toBe('Grace Hopper');
    expect(user.status).toBe('active');
    const fetched = await sdk.users().get(user.userID);
    expect(fetched).toEqual(user);
    const deleted = await sdk.users().delete(user.userID);
    expect(deleted.httpStatusCode).toBe(200);
    expect(deleted.requestData.requestID).toMatch(/\S/);
    await expect(sdk.users().get(user.userID)).rejects.toMatchObject({ httpStatusCode: 404 });
  });

  it('creates, lists (by value and type, by user) and deletes identifiers', async () => {
    const user = await sdk.users().createActiveByName('Katherine Johnson');
    const email = await sdk.identifiers().create(user.userID, { identifierType: 'email', identifierValue: 'Katherine@NASA.example', status: 'primary' });
    expect(email).toMatchObject({ type: 'email', value: 'katherine@nasa.example', status: 'primary', userID: user.userID });
    expect(email.identifierID).toMatch(/^ide-[0-9]+$/);
    const phone = await sdk.identifiers().create(user.userID, { identifierType: 'phone', identifierValue: '+15551234567', status: 'pending' });

    const byValue = await sdk.identifiers().listByValueAndType('katherine@nasa.example', 'email');
    expect(byValue.identifiers).toEqual([email]);
    expect(byValue.paging).toEqual({ page: 1, totalPages: 1, totalItems: 1 });

    const byUser = await sdk.identifiers().listByUserId(user.userID);
    expect(byUser.identifiers.map((i) => i.identifierID).sort()).toEqual([email.identifierID, phone.identifierID].sort());
    const byUserAndType = await sdk.identifiers().listByUserIdAndType(user.userID, 'phone');
    expect(byUserAndType.identifiers).toEqual([phone]);

    const verified = await sdk.identifiers().updateStatus(user.userID, phone.identifierID, 'verified');
    expect(verified.status).toBe('verified');

    const del = await sdk.identifiers().delete(user.userID, email.identifierID);
    expect(del.httpStatusCode).toBe(200);
    expect((await sdk.identifiers().listByValueAndType('katherine@nasa.example', 'email')).identifiers).toEqual([]);
  });

  it('surfaces our errors as the SDK\'s ServerError with status and validation', async () => {
    const user = await sdk.users().createActiveByName('Dorothy Vaughan');
    await sdk.identifiers().create(user.userID, { identifierType: 'email', identifierValue: 'dorothy@example.com', status: 'primary' });
    await expect(
      sdk.identifiers().create(user.userID, { identifierType: 'email', identifierValue: 'dorothy@example.com', status: 'primary' }),
    ).rejects.toMatchObject({ httpStatusCode: 409 });
    await expect(sdk.users().get('usr-1')).rejects.toMatchObject({ httpStatusCode: 404 });
  });

  it('deleting a user removes its identifiers', async () => {
    const user = await sdk.users().createActiveByName('Mary Jackson');
    await sdk.identifiers().create(user.userID, { identifierType: 'username', identifierValue: 'mary.j', status: 'primary' });
    await sdk.users().delete(user.userID);
    expect((await sdk.identifiers().listByUserId(user.userID)).identifiers).toEqual([]);
  });

  it('rejects a wrong API secret', async () => {
    const wrong = new SDK(new Config(project.projectID, `corbado1_${'x'.repeat(43)}`, project.frontendApiUrl, project.backendApiUrl));
    await expect(wrong.users().get('usr-1')).rejects.toMatchObject({ httpStatusCode: 401 });
  });
});

describe('@corbado/node-sdk validates our session tokens', () => {
  let session: string;
  let userId: string;

  beforeAll(async () => {
    const credential = await appendPasskey('hedy@example.com', 'Hedy Lamarr');
    session = await loginWith('hedy@example.com', credential);
    userId = JSON.parse(Buffer.from(session.split('.')[1], 'base64url').toString()).sub as string;
  }, 60_000);

  it('accepts a session from the connect login flow with the user ID and full name', async () => {
    expect(userId).toMatch(/^usr-[0-9]+$/);
    await expect(sdk.sessions().validateToken(session)).resolves.toEqual({ userId, fullName: 'Hedy Lamarr' });
    expect((await sdk.users().get(userId)).fullName).toBe('Hedy Lamarr');
  });

  it('rejects an expired session token', async () => {
    const past = Math.floor(Date.now() / 1000) - 60;
    const expired = await signToken(admin.deps, project.projectID, { kind: 'session', sub: userId, name: 'Hedy Lamarr', exp: past });
    await expect(sdk.sessions().validateToken(expired)).rejects.toMatchObject({ name: 'JWT_EXPIRED' });
  });

  it('rejects a tampered session token', async () => {
    const [h, p, sig] = session.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'usr-1', name: 'Mallory' })).toString('base64url');
    await expect(sdk.sessions().validateToken(`${h}.${forged}.${sig}`)).rejects.toMatchObject({ name: 'JWT_INVALID' });
  });
});
