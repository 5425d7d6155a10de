/**
 * The ceremony's and the challenge service's webhook events end to end: backend API calls through
 * the gateway, the services' outboxes, the events service, and a real receiver on loopback that
 * verifies every delivery with the `standardwebhooks` package. passkey-login.completed,
 * passkey-login.failed, passkey.clone-detected, passkey.deleted, challenge.locked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator, type SoftCredential } from '../kit/softAuthenticator.js';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';
import { WebhookReceiver } from '../kit/webhookReceiver.js';

const ORIGIN = 'http://localhost:3000';
let stack: Stack;
let project: ProjectJson;
const receiver = new WebhookReceiver();
let secret = '';
/** backendClientInformation's client as the payload's metadata describes it. */
const METADATA = { ip: backendClientInformation.remoteAddress, os: 'Linux', browser: 'Chrome', customHeaders: {} };

async function call(path: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method: init.method ?? 'POST',
    headers: { authorization: basic(project), 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

beforeAll(async () => {
  await receiver.start();
  stack = await startStack();
  project = await stack.createProject('webhook-ceremonies');
  const endpoint = await call('/v2/webhookEndpoints', {
    body: { url: receiver.url, subscribedEvents: ['passkey.deleted', 'passkey-login.completed', 'passkey-login.failed', 'passkey.clone-detected', 'challenge.locked'] },
  });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(200);
  secret = endpoint.body.signingSecret;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver.stop();
});

/** A user with one passkey registered through B2/B3. */
async function userWithPasskey() {
  const userID = (await call('/v2/users', { body: { status: 'active' } })).body.userID as string;
  const auth = new SoftAuthenticator();
  const start = await call('/v2/passkey/append/start', {
    body: { userID, processID: 'proc-a', username: `${userID}@example.com`, clientInformation: backendClientInformation, passkeyIntelFlags: {}, situation: 'default' },
  });
  const { json, credential } = auth.createFromOptions(start.body.attestationOptions, ORIGIN);
  const finish = await call('/v2/passkey/append/finish', { body: { userID, processID: 'proc-a', attestationResponse: JSON.stringify(json), trackingID: 'trk-a', clientInformation: backendClientInformation } });
  expect(finish.status, JSON.stringify(finish.body)).toBe(200);
  const passkeyID = finish.body.passkeyData.id as string;
  return { userID, auth, credential, passkeyID };
}

/** B4 then B5 with the authenticator's answer; `counter` sets the signature counter it reports. */
async function login(userID: string, auth: SoftAuthenticator, credential: SoftCredential, processID: string, counter?: number) {
  const start = await call('/v2/passkey/login/start', { body: { userID, processID, clientInformation: backendClientInformation, crossDeviceAuthenticationStrategy: 'standard' } });
  expect(start.status).toBe(200);
  const assertion = auth.getFromOptions(start.body.assertionOptions, credential, ORIGIN, counter === undefined ? {} : { counter });
  const body = { userID, processID, assertionResponse: JSON.stringify(assertion), trackingID: processID, clientInformation: backendClientInformation };
  return { body, finish: await call('/v2/passkey/login/finish', { body }) };
}

describe('passkey logins', () => {
  it('delivers passkey-login.completed for a B5 login, with the passkey, the hosted credential object and the client', async () => {
    const { userID, auth, credential, passkeyID } = await userWithPasskey();
    const { finish } = await login(userID, auth, credential, 'proc-l1');
    expect(finish.status, JSON.stringify(finish.body)).toBe(200);
    const payload = await receiver.verifiedPayload('passkey-login.completed', userID, secret);
    expect(payload).toEqual({
      type: 'passkey-login.completed',
      metadata: METADATA,
      timestamp: expect.any(String),
      data: { userID, passkeyID, credentialID: credential.id, credential: { id: passkeyID, webAuthnID: expect.any(String), browser: 'Chrome', os: 'Linux' } },
    });
  });

  it('delivers passkey-login.failed with the reason the ceremony answered (a replayed B5)', async () => {
    const { userID, auth, credential, passkeyID } = await userWithPasskey();
    const first = await login(userID, auth, credential, 'proc-l2');
    expect(first.finish.status).toBe(200);
    const replay = await call('/v2/passkey/login/finish', { body: first.body });
    expect(replay.status).toBe(409);
    expect(replay.body.error.type).toBe('challenge_not_found_or_used');
    const payload = await receiver.verifiedPayload('passkey-login.failed', userID, secret);
    expect(payload).toEqual({ type: 'passkey-login.failed', metadata: METADATA, timestamp: expect.any(String), data: { userID, passkeyID, credentialID: credential.id, reason: 'challenge_not_found_or_used' } });
  });

  it('delivers passkey.clone-detected when the signature counter goes backwards, and the login fails as counter_regression', async () => {
    const { userID, auth, credential, passkeyID } = await userWithPasskey();
    expect((await login(userID, auth, credential, 'proc-c1', 7)).finish.status).toBe(200);
    const cloned = await login(userID, auth, credential, 'proc-c2', 3);
    expect(cloned.finish.body.error?.type).toBe('counter_regression');
    const payload = await receiver.verifiedPayload('passkey.clone-detected', userID, secret);
    expect(payload).toEqual({
      type: 'passkey.clone-detected',
      metadata: METADATA,
      timestamp: expect.any(String),
      data: { userID, passkeyID, credentialID: credential.id, counter: 3, storedCounter: 7, blocked: true },
    });
    await receiver.waitFor(() => receiver.of('passkey-login.failed').some((r) => r.body.includes(userID) && r.body.includes('counter_regression')));
  });
});

describe('a connect login (frontend API)', () => {
  const UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';
  const capable = { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true, clientCapabilities: { passkeyPlatformAuthenticator: true, userVerifyingPlatformAuthenticator: true } };

  /** A frontend call as the web SDK makes it, from a Mac with Chrome. */
  async function front(path: string, body: unknown, processToken?: string) {
    const res = await fetch(`${stack.frontendUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-corbado-projectid': project.projectID, origin: ORIGIN, 'user-agent': UA, ...(processToken ? { 'x-corbado-process-id': processToken } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }
  const processOf = (r: { body: Record<string, any> }) => (r.body.token ?? r.body.processID) as string;

  it('delivers passkey-login.completed with the browser as metadata: the ceremony verifies the login connect asks it to', async () => {
    const identifier = 'connect.ada@example.com';
    const auth = new SoftAuthenticator();
    const token = await call('/v2/connectTokens', { body: { type: 'passkey-append', data: { identifier, displayName: 'Ada' } } });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const appendProcess = processOf(await front('/v2/connect/append/init', { clientInformation: capable, flags: {} }));
    const appendStart = await front('/v2/connect/append/start', { appendTokenValue: token.body.secret, loadedMs: 100 }, appendProcess);
    expect(appendStart.status, JSON.stringify(appendStart.body)).toBe(200);
    const { json, credential } = auth.createFromOptions(appendStart.body.attestationOptions, ORIGIN);
    expect((await front('/v2/connect/append/finish', { attestationResponse: JSON.stringify(json), completionType: 'manual' }, appendProcess)).status).toBe(200);

    const loginProcess = processOf(await front('/v2/connect/login/init', { clientInformation: capable, flags: {} }));
    const start = await front('/v2/connect/login/start', { identifier, source: 'text-field', loadedMs: 300 }, loginProcess);
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const assertion = auth.getFromOptions(start.body.assertionOptions, credential, ORIGIN);
    const finish = await front('/v2/connect/login/finish', { isConditionalUI: false, assertionResponse: JSON.stringify(assertion), loadedMs: 900 }, loginProcess);
    expect(finish.status, JSON.stringify(finish.body)).toBe(200);

    const payload = await receiver.verifiedPayload('passkey-login.completed', credential.id, secret);
    expect(payload).toMatchObject({ type: 'passkey-login.completed', metadata: { ip: expect.stringMatching(/127\.0\.0\.1/), os: 'macOS', browser: 'Chrome' }, data: { userID: expect.stringMatching(/^usr-/), passkeyID: expect.stringMatching(/^cre-/), credentialID: credential.id } });
  });
});

describe('passkey.deleted', () => {
  it('is delivered when the application deletes a passkey through the backend API, without a client', async () => {
    const { userID, credential, passkeyID } = await userWithPasskey();
    const deleted = await call(`/v2/users/${userID}/credentials/${passkeyID}`, { method: 'DELETE' });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    const payload = await receiver.verifiedPayload('passkey.deleted', userID, secret);
    expect(payload).toEqual({
      type: 'passkey.deleted',
      metadata: { ip: '', os: '', browser: '', customHeaders: {} },
      timestamp: expect.any(String),
      data: { userID, passkeyID, credentialID: credential.id, credential: { id: passkeyID, webAuthnID: expect.any(String), browser: 'Chrome', os: 'Linux' } },
    });
    // A second delete finds nothing and sends nothing.
    expect((await call(`/v2/users/${userID}/credentials/${passkeyID}`, { method: 'DELETE' })).status).toBe(404);
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.of('passkey.deleted').filter((r) => r.body.includes(userID))).toHaveLength(1);
  });
});

describe('challenge.locked', () => {
  it('is delivered once, from the challenge service, when the last allowed wrong code locks a challenge; without the code or the address', async () => {
    const userID = (await call('/v2/users', { body: { status: 'active' } })).body.userID as string;
    const created = await call(`/v2/users/${userID}/challenges`, { body: { challengeType: 'email_otp', identifierValue: 'locked.ada@example.com', clientInformation: backendClientInformation } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const challengeID = created.body.challengeID as string;
    const wrong = String((Number(created.body.value) + 1) % 1_000_000).padStart(6, '0');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(`/v2/users/${userID}/challenges/${challengeID}`, { method: 'PATCH', body: { value: wrong } })).status);
    // Four 400s saying how many are left, the locking fifth and the one after it 410.
    expect(statuses).toEqual([400, 400, 400, 400, 410, 410]);
    const payload = await receiver.verifiedPayload('challenge.locked', challengeID, secret);
    expect(payload).toEqual({
      type: 'challenge.locked',
      metadata: { ip: backendClientInformation.remoteAddress, os: '', browser: '', customHeaders: {} },
      timestamp: expect.any(String),
      data: { userID, challengeID, challengeType: 'email_otp' },
    });
    const bodies = receiver.of('challenge.locked').filter((r) => r.body.includes(challengeID));
    for (const b of bodies) {
      expect(b.body).not.toContain('locked.ada@example.com');
      expect(b.body).not.toContain(created.body.value);
    }
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.of('challenge.locked').filter((r) => r.body.includes(challengeID))).toHaveLength(1);
    await expect.poll(async () => stack.db.collection('challenge_outbox').countDocuments({ 'data.challengeID': challengeID, sentAt: { $exists: true } })).toBe(1);
  });
});
