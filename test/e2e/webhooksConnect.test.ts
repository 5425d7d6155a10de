/**
 * The events connect produces beyond the backend API's user create/delete, end to end: a self
 * sign-up's user.created, user.updated (the user's own /v2/me change and the application's
 * PATCH), session.revoked (refresh-token reuse, the application's revoke, a user's disabling),
 * through the events service to a real receiver on loopback that verifies every delivery with
 * `standardwebhooks`. Frontend changes carry the browser's address, OS and browser as metadata;
 * the backend API's carry none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../kit/softAuthenticator.js';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';
import { verifyWebhook, WebhookReceiver, type ReceivedWebhook } from '../kit/webhookReceiver.js';

const ORIGIN = 'http://localhost:3000';
const CHROME_ON_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const NO_CLIENT = { ip: '', os: '', browser: '', customHeaders: {} };

let stack: Stack;
let project: ProjectJson;
const receiver = new WebhookReceiver();
let secret = '';

type Rsp = { status: number; body: Record<string, any> };

async function back(method: string, path: string, body?: unknown): Promise<Rsp> {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method,
    headers: { authorization: basic(project), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

/** A browser's call: a Chrome User-Agent, the project header, a process or bearer token. */
async function front(method: string, path: string, o: { body?: unknown; process?: string; bearer?: string } = {}): Promise<Rsp> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-corbado-projectid': project.projectID, origin: ORIGIN, 'user-agent': CHROME_ON_MAC };
  if (o.process) headers['x-corbado-process-id'] = o.process;
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  const res = await fetch(`${stack.frontendUrl}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

/** The one delivery of `type` whose data matches, verified as a receiver would. */
async function delivered(type: string, match: (data: Record<string, any>) => boolean): Promise<Record<string, any>> {
  const find = () => receiver.of(type).find((r: ReceivedWebhook) => match((JSON.parse(r.body) as { data: Record<string, any> }).data));
  await receiver.waitFor(() => find() !== undefined);
  return verifyWebhook(find()!, secret);
}

beforeAll(async () => {
  await receiver.start();
  stack = await startStack();
  project = await stack.createProject('webhooks-connect', [ORIGIN], ['--self-service', 'enabled']);
  const endpoint = await back('POST', '/v2/webhookEndpoints', { url: receiver.url, subscribedEvents: ['user.created', 'user.updated', 'session.revoked'] });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(200);
  secret = endpoint.body.signingSecret as string;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver.stop();
});

describe("connect's events", () => {
  let userID = '';
  let sessionToken = '';
  let refreshToken = '';

  it('delivers user.created when a self sign-up completes, with the browser as its metadata', async () => {
    const init = await front('POST', '/v2/auth/process/init', { body: { clientInformation: { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true } } });
    const process = init.body.token as string;
    const signup = await front('POST', '/v2/auth/signup/init', { process, body: { identifiers: [{ type: 'email', identifier: 'hook-ada@example.com' }], fullName: 'Ada' } });
    expect(signup.body.blockBody?.block, JSON.stringify(signup.body)).toBe('passkey-append');
    userID = (await stack.db.collection('auth_processes').findOne({ projectId: project.projectID, userId: { $exists: true } }))!.userId as string;
    const { json } = new SoftAuthenticator().createFromOptions(signup.body.blockBody.data.challenge, ORIGIN);
    expect((await front('POST', '/v2/auth/passkey/append/finish', { process, body: { signedChallenge: JSON.stringify(json) } })).body.blockBody.block).toBe('passkey-appended');
    // Not an account before the sign-up completes: nothing is sent for it yet.
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.received.filter((r) => r.body.includes(userID))).toEqual([]);

    const done = await front('POST', '/v2/auth/process/complete', { process, body: {} });
    expect(done.body.blockBody.block).toBe('completed');
    sessionToken = done.body.blockBody.data.shortSession as string;
    refreshToken = done.body.blockBody.data.longSession as string;
    const payload = await delivered('user.created', (d) => d.userID === userID);
    expect(payload).toEqual({
      type: 'user.created',
      metadata: { ip: expect.stringMatching(/127\.0\.0\.1$/), os: 'macOS', browser: 'Chrome', customHeaders: {} },
      timestamp: expect.any(String),
      data: { userID, status: 'active', fullName: 'Ada' },
    });
  });

  it("delivers user.updated for the user's own name change (browser metadata) and the application's (none)", async () => {
    expect((await front('PATCH', '/v2/me', { bearer: sessionToken, body: { fullName: 'Ada Lovelace' } })).status).toBe(200);
    const own = await delivered('user.updated', (d) => d.userID === userID && d.fullName === 'Ada Lovelace');
    expect(own).toMatchObject({ metadata: { os: 'macOS', browser: 'Chrome' }, data: { userID, status: 'active', fullName: 'Ada Lovelace' } });
    expect(own.metadata.ip).not.toBe('');

    expect((await back('PATCH', `/v2/users/${userID}`, { fullName: 'Countess Lovelace' })).status).toBe(200);
    const app = await delivered('user.updated', (d) => d.userID === userID && d.fullName === 'Countess Lovelace');
    expect(app).toEqual({ type: 'user.updated', metadata: NO_CLIENT, timestamp: expect.any(String), data: { userID, status: 'active', fullName: 'Countess Lovelace' } });
  });

  it('delivers session.revoked when a spent refresh token is shown again, naming the long session', async () => {
    const refreshed = await front('POST', '/v2/me/refresh', { bearer: refreshToken, body: {} });
    expect(refreshed.status).toBe(200);
    expect((await front('POST', '/v2/me/refresh', { bearer: refreshToken, body: {} })).status).toBe(401);
    const sessions = await back('GET', `/v2/users/${userID}/longSessions`);
    const longSessionID = sessions.body.longSessions[0].longSessionID as string;
    const payload = await delivered('session.revoked', (d) => d.longSessionID === longSessionID);
    expect(payload).toMatchObject({ metadata: { os: 'macOS', browser: 'Chrome' }, data: { userID, longSessionID, reason: 'refresh_token_reuse' } });
  });

  it("delivers session.revoked for the application's revoke, and for each session a user's disabling ends", async () => {
    const first = (await back('POST', `/v2/users/${userID}/longSessions`, { appType: 'web', identifierValue: 'hook-ada@example.com' })).body.longSessionID as string;
    expect((await back('PATCH', `/v2/users/${userID}/longSessions/${first}`, { status: 'revoked' })).status).toBe(200);
    expect(await delivered('session.revoked', (d) => d.longSessionID === first)).toEqual({
      type: 'session.revoked',
      metadata: NO_CLIENT,
      timestamp: expect.any(String),
      data: { userID, longSessionID: first, reason: 'revoked_by_application' },
    });

    const second = (await back('POST', `/v2/users/${userID}/longSessions`, { appType: 'web', identifierValue: 'hook-ada@example.com' })).body.longSessionID as string;
    expect((await back('PATCH', `/v2/users/${userID}`, { status: 'disabled' })).status).toBe(200);
    expect((await delivered('session.revoked', (d) => d.longSessionID === second)).data).toEqual({ userID, longSessionID: second, reason: 'user_disabled' });
    expect((await delivered('user.updated', (d) => d.userID === userID && d.status === 'disabled')).metadata).toEqual(NO_CLIENT);
    // One event per change: each session ended once, the user created once.
    expect(receiver.of('session.revoked').filter((r) => r.body.includes(userID))).toHaveLength(3);
    expect(receiver.of('user.created').filter((r) => r.body.includes(userID))).toHaveLength(1);
  });
});
