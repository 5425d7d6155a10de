/**
 * Backend passkey ceremonies end to end: B2–B7 and passkey management through the real gateway
 * with HTTP Basic auth, into the real ceremony and connect services, with the service's software
 * authenticator playing the browser and the authenticator.
 */
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator, type SoftCredential } from '../kit/softAuthenticator.js';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';
const ORIGIN_B = 'http://localhost:4000';
const ZERO_AAGUID = '00000000-0000-0000-0000-000000000000';
const DATA_URI = /^data:image\/[a-z0-9.+-]+(;[a-z0-9=.+-]+)*(;base64)?,/;
const B64URL = /^[A-Za-z0-9_-]+$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

let stack: Stack;
/** Project A: origin http://localhost:3000. */
let project: ProjectJson;
/** Project B: origin http://localhost:4000, same RP ID. */
let other: ProjectJson;

type Rsp = { status: number; body: Record<string, any>; headers: Headers };
type Strategy = 'standard' | 'minimize' | 'maximize';

async function call(path: string, init: { method?: string; body?: unknown; as?: ProjectJson; auth?: string } = {}): Promise<Rsp> {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method: init.method ?? 'POST',
    headers: { authorization: init.auth ?? basic(init.as ?? project), 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
}

function expectError(r: Rsp, status: number, type: string, fields?: string[]) {
  expect(r.status).toBe(status);
  expect(r.body.httpStatusCode).toBe(status);
  expect(r.body.error.type).toBe(type);
  expect(r.body).not.toHaveProperty('passkeyData');
  if (fields) expect(r.body.error.validation.map((v: { field: string }) => v.field)).toEqual(fields);
}

function expectGenericRsp(r: Rsp) {
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ httpStatusCode: 200, message: 'OK', requestData: { requestID: expect.stringMatching(/^req-/), link: '' }, runtime: expect.any(Number) });
}

const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

async function createUser(as: ProjectJson = project, fullName = 'Ada Lovelace'): Promise<string> {
  const r = await call('/v2/users', { as, body: { fullName, status: 'active' } });
  expect(r.status).toBe(200);
  return r.body.userID as string;
}

interface AppendStartOptions {
  as?: ProjectJson;
  processID?: string;
  username?: string;
  flags?: Record<string, unknown>;
}

const appendStart = (userID: string, o: AppendStartOptions = {}) =>
  call('/v2/passkey/append/start', {
    as: o.as,
    body: {
      userID,
      processID: o.processID ?? 'proc-append',
      username: o.username ?? 'ada@example.com',
      clientInformation: backendClientInformation,
      passkeyIntelFlags: o.flags ?? {},
      situation: 'default',
    },
  });

const appendFinish = (userID: string, attestationResponse: unknown, o: { as?: ProjectJson; processID?: string } = {}) =>
  call('/v2/passkey/append/finish', {
    as: o.as,
    body: { userID, processID: o.processID ?? 'proc-append', attestationResponse: json(attestationResponse), trackingID: 'trk-append', clientInformation: backendClientInformation },
  });

const loginStart = (userID: string, strategy: Strategy = 'standard', as?: ProjectJson) =>
  call('/v2/passkey/login/start', { as, body: { userID, processID: 'proc-login', clientInformation: backendClientInformation, crossDeviceAuthenticationStrategy: strategy } });

const loginFinish = (userID: string, assertionResponse: unknown, o: { as?: ProjectJson; sign?: boolean } = {}) =>
  call('/v2/passkey/login/finish', {
    as: o.as,
    body: {
      userID,
      processID: 'proc-login',
      assertionResponse: json(assertionResponse),
      trackingID: 'trk-login',
      clientInformation: backendClientInformation,
      ...(o.sign !== undefined ? { signPasskeyData: o.sign } : {}),
    },
  });

const mediationStart = (o: { as?: ProjectJson; processID?: string; clientInformation?: Record<string, unknown> } = {}) =>
  call('/v2/passkey/mediation/start', {
    as: o.as,
    body: { clientInformation: o.clientInformation ?? backendClientInformation, ...(o.processID !== undefined ? { processID: o.processID } : {}) },
  });

const mediationFinish = (assertionResponse: unknown, o: { as?: ProjectJson; processID?: string; sign?: boolean } = {}) =>
  call('/v2/passkey/mediation/finish', {
    as: o.as,
    body: {
      assertionResponse: json(assertionResponse),
      clientInformation: backendClientInformation,
      processID: o.processID ?? 'proc-mediation',
      trackingID: 'trk-mediation',
      ...(o.sign !== undefined ? { signPasskeyData: o.sign } : {}),
    },
  });

const listCredentials = (userID: string, as?: ProjectJson, query = '') => call(`/v2/users/${userID}/credentials${query}`, { method: 'GET', as });
const deleteCredential = (userID: string, id: string, as?: ProjectJson) => call(`/v2/users/${userID}/credentials/${id}`, { method: 'DELETE', as });

interface Registered {
  auth: SoftAuthenticator;
  credential: SoftCredential;
  start: Record<string, any>;
  response: Record<string, unknown>;
  passkeyData: Record<string, any>;
}

/** B2 → authenticator → B3, which must succeed. */
async function register(userID: string, o: AppendStartOptions & { auth?: SoftAuthenticator; origin?: string } = {}): Promise<Registered> {
  const auth = o.auth ?? new SoftAuthenticator({ flags: { be: true } });
  const start = await appendStart(userID, o);
  expect(start.status).toBe(200);
  const { json: response, credential } = auth.createFromOptions(start.body.attestationOptions, o.origin ?? ORIGIN);
  const finish = await appendFinish(userID, response, o);
  expect(finish.status, JSON.stringify(finish.body)).toBe(200);
  return { auth, credential, start: start.body, response, passkeyData: finish.body.passkeyData };
}

/** B4 → authenticator → B5. */
async function login(userID: string, reg: Registered, o: { as?: ProjectJson; origin?: string; sign?: boolean } = {}) {
  const start = await loginStart(userID, 'standard', o.as);
  expect(start.status).toBe(200);
  const assertion = reg.auth.getFromOptions(start.body.assertionOptions, reg.credential, o.origin ?? ORIGIN);
  return { assertion, finish: await loginFinish(userID, assertion, o) };
}

/** B6 → authenticator (discoverable: with the user handle) → B7. */
async function mediate(reg: Registered, o: { as?: ProjectJson; origin?: string; sign?: boolean } = {}) {
  const start = await mediationStart({ as: o.as, processID: 'proc-mediation' });
  expect(start.status).toBe(200);
  const assertion = reg.auth.getFromOptions(start.body.assertionOptions, reg.credential, o.origin ?? ORIGIN);
  return { assertion, finish: await mediationFinish(assertion, o) };
}

function expectPasskeyData(d: Record<string, any>, expected: { userID: string; username?: string; aaguid?: string; name?: string; ceremonyType?: string }) {
  expect(d).toEqual({
    id: expect.stringMatching(/^cre-[0-9]+$/),
    userID: expected.userID,
    username: expected.username ?? 'ada@example.com',
    challengeID: expect.stringMatching(/^pch-[0-9]+$/),
    ceremonyType: expected.ceremonyType ?? 'local',
    aaguidDetails: {
      aaguid: expected.aaguid ?? ZERO_AAGUID,
      name: expected.name ?? 'Passkey',
      iconLight: expect.stringMatching(DATA_URI),
      iconDark: expect.stringMatching(DATA_URI),
    },
  });
}

/** Verifies signedPasskeyData with the project's published keys and checks every claim. */
async function expectSignedPasskeyData(token: string, p: ProjectJson, data: Record<string, any>, keys: JWTVerifyGetKey) {
  const { payload, protectedHeader } = await jwtVerify(token, keys, {
    issuer: p.frontendApiUrl,
    audience: p.projectID,
    algorithms: ['ES256'],
  });
  expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'JWT', kid: expect.any(String) });
  expect(payload).toEqual({
    kind: 'passkey_data',
    iss: p.frontendApiUrl,
    aud: p.projectID,
    sub: data.userID,
    iat: expect.any(Number),
    exp: expect.any(Number),
    id: data.id,
    userID: data.userID,
    username: data.username,
    challengeID: data.challengeID,
    ceremonyType: data.ceremonyType,
    aaguidDetails: { aaguid: data.aaguidDetails.aaguid, name: data.aaguidDetails.name },
  });
  expect(payload.exp! - payload.iat!).toBeGreaterThan(0);
  expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(300);
}

const remoteJwks = (p: ProjectJson) => createRemoteJWKSet(new URL(`${stack.frontendUrl}/.well-known/jwks`), { headers: { 'X-Corbado-ProjectID': p.projectID } });

async function localJwks(p: ProjectJson) {
  const res = await fetch(`${stack.frontendUrl}/.well-known/jwks`, { headers: { 'x-corbado-projectid': p.projectID } });
  expect(res.status).toBe(200);
  return createLocalJWKSet((await res.json()) as JSONWebKeySet);
}

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('passkeys-e2e', [ORIGIN]);
  other = await stack.createProject('passkeys-e2e-other', [ORIGIN_B]);
}, 120_000);
afterAll(async () => stack?.stop());

describe('B2/B3 passkey append', () => {
  it('B2 answers the decision, the creation options and the insights in the interface shape', async () => {
    const userID = await createUser();
    const r = await appendStart(userID);
    expect(r.status).toBe(200);
    // The interface's shape, and beside it the reference's flat fields the published Node SDK reads, with the same facts.
    expect(Object.keys(r.body).sort()).toEqual(['appendAllow', 'attestationOptions', 'credentialCount', 'decisionInsights', 'decisionTag', 'detectionInsights', 'detectionTags']);
    expect({ decisionTag: r.body.decisionTag, detectionTags: r.body.detectionTags, credentialCount: r.body.credentialCount }).toEqual({ decisionTag: r.body.decisionInsights.tag, detectionTags: r.body.detectionInsights.tags, credentialCount: 0 });
    expect(r.body.appendAllow).toBe(true);
    expect(typeof r.body.attestationOptions).toBe('string');

    const options = JSON.parse(r.body.attestationOptions);
    expect(Object.keys(options)).toEqual(['publicKey']);
    const pk = options.publicKey;
    expect(pk.challenge).toMatch(B64URL);
    expect(Buffer.from(pk.challenge, 'base64url').length).toBe(32);
    expect(pk.rp).toEqual({ name: 'passkeys-e2e', id: 'localhost' });
    expect(pk.user).toEqual({ name: 'ada@example.com', id: expect.stringMatching(B64URL), displayName: 'Ada Lovelace' });
    // The user handle is opaque: never the user ID.
    expect(Buffer.from(pk.user.id, 'base64url').toString()).not.toContain(userID);
    expect(pk.pubKeyCredParams.every((p: { type: string }) => p.type === 'public-key')).toBe(true);
    const algs = pk.pubKeyCredParams.map((p: { alg: number }) => p.alg);
    expect(algs).toEqual(expect.arrayContaining([-7, -8, -257]));
    expect(algs[0]).toBe(-7);
    expect(pk.authenticatorSelection).toEqual({ residentKey: 'required', requireResidentKey: true, userVerification: 'required' });
    expect(pk.timeout).toBe(300_000);
    expect(pk.attestation).toBe('none');
    expect(pk.excludeCredentials).toEqual([]);

    expect(r.body.detectionInsights).toEqual({
      tags: [
        { category: 'support', name: 'platform-authenticator' },
        { category: 'support', name: 'conditional-mediation' },
        { category: 'clientEnv', name: 'new-env' },
        { category: 'passkey', name: 'user-no-passkeys' },
      ],
      credentialIds: [],
      clientEnvIds: [],
      passwordManagerIds: [],
      historyData: {
        defaultCount: 0,
        afterErrorCount: 0,
        afterHybridCount: 0,
        autoCount: 0,
        defaultCooldown: false,
        afterErrorCooldown: false,
        afterHybridCooldown: false,
        autoCooldown: false,
        conditionalCreateCooldown: false,
        inAppCooldown: false,
      },
    });
    expect(r.body.decisionInsights).toEqual({ tag: 'user-no-pks', isRestrictedBrowser: false, variant: 'default', auto: false, conditional: false, customData: {} });
  });

  it('B3 stores the passkey and answers passkeyData; the AAGUID names the authenticator', async () => {
    const userID = await createUser();
    const reg = await register(userID);
    expect(Object.keys(reg.passkeyData).sort()).toEqual(['aaguidDetails', 'ceremonyType', 'challengeID', 'id', 'userID', 'username']);
    expectPasskeyData(reg.passkeyData, { userID });

    const apple = await register(await createUser(), { auth: new SoftAuthenticator({ aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd' }), username: 'grace@example.com' });
    expectPasskeyData(apple.passkeyData, { userID: apple.passkeyData.userID, username: 'grace@example.com', aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd', name: 'Apple Passwords' });
    expect(apple.passkeyData.id).not.toBe(reg.passkeyData.id);
  });

  it('B3 tells how the ceremony ran: a roaming key is security-key, a phone over hybrid is cda', async () => {
    const key = await register(await createUser(), { auth: new SoftAuthenticator({ attachment: 'cross-platform', transports: ['usb'] }) });
    expect(key.passkeyData.ceremonyType).toBe('security-key');
    const phone = await register(await createUser(), { auth: new SoftAuthenticator({ attachment: 'cross-platform', transports: ['hybrid', 'internal'] }) });
    expect(phone.passkeyData.ceremonyType).toBe('cda');
  });

  it('a second B2 lists the passkey in excludeCredentials and advises against another from the same environment', async () => {
    const userID = await createUser();
    const reg = await register(userID);
    const again = await appendStart(userID);
    expect(again.status).toBe(200);
    const pk = JSON.parse(again.body.attestationOptions).publicKey;
    expect(pk.excludeCredentials).toEqual([{ id: reg.credential.id, type: 'public-key', transports: ['hybrid', 'internal'] }]);
    // The WebAuthn user handle is stable per user.
    expect(pk.user.id).toBe(JSON.parse(reg.start.attestationOptions).publicKey.user.id);
    expect(pk.challenge).not.toBe(JSON.parse(reg.start.attestationOptions).publicKey.challenge);
    expect(again.body.appendAllow).toBe(false);
    expect(again.body.decisionInsights).toEqual({ tag: 'user-env-pk-exists', isRestrictedBrowser: false, variant: 'none', auto: false, conditional: false, customData: {} });
    expect(again.body.detectionInsights.credentialIds).toEqual([reg.passkeyData.id]);
    expect(again.body.detectionInsights.tags).toContainEqual({ category: 'passkey', name: 'user-has-passkeys' });
  });

  it('re-registering the same credential is 409 passkey_already_exists, for the same or another user', async () => {
    const userID = await createUser();
    const reg = await register(userID);
    const forced = await appendStart(userID, { flags: { forcePasskeyAppend: true } });
    expect(forced.body.appendAllow).toBe(true);
    expect(forced.body.decisionInsights).toMatchObject({ tag: 'forced-append', variant: 'default', customData: { overriddenTag: 'user-env-pk-exists' } });
    const { json: same } = reg.auth.createFromOptions(forced.body.attestationOptions, ORIGIN, { credentialId: reg.credential.id });
    expectError(await appendFinish(userID, same), 409, 'passkey_already_exists');

    const otherUser = await createUser(project, 'Grace Hopper');
    const start = await appendStart(otherUser);
    const { json: sameForOther } = reg.auth.createFromOptions(start.body.attestationOptions, ORIGIN, { credentialId: reg.credential.id });
    expectError(await appendFinish(otherUser, sameForOther), 409, 'passkey_already_exists');

    expect((await listCredentials(userID)).body.credentials.map((c: { id: string }) => c.id)).toEqual([reg.passkeyData.id]);
    expect((await listCredentials(otherUser)).body.credentials).toEqual([]);
  });

  it('a replayed B3 is 409 challenge_not_found_or_used and stores nothing', async () => {
    const userID = await createUser();
    const reg = await register(userID);
    expectError(await appendFinish(userID, reg.response), 409, 'challenge_not_found_or_used');
    expect((await listCredentials(userID)).body.paging.totalItems).toBe(1);
  });

  it("B3 must answer the user's own ceremony, from an origin of the project", async () => {
    const userID = await createUser();
    const auth = new SoftAuthenticator();
    const start = await appendStart(userID);
    // Another user of the project cannot finish it.
    const { json: response } = auth.createFromOptions(start.body.attestationOptions, ORIGIN);
    expectError(await appendFinish(await createUser(), response), 409, 'challenge_not_found_or_used');
    // Nor another process.
    expectError(await appendFinish(userID, response, { processID: 'proc-other' }), 409, 'challenge_not_found_or_used');
    // A foreign origin is refused (and uses up the ceremony).
    const start2 = await appendStart(userID);
    const { json: foreign } = auth.createFromOptions(start2.body.attestationOptions, 'https://evil.example');
    expectError(await appendFinish(userID, foreign), 400, 'origin_mismatch');
    // The first ceremony is still open for its user and process.
    expect((await appendFinish(userID, response)).status).toBe(200);
  });
});

describe('B4/B5 passkey login', () => {
  async function userWithTwoPasskeys() {
    const userID = await createUser();
    const synced = await register(userID);
    const local = await register(userID, { auth: new SoftAuthenticator({ transports: ['internal'] }) });
    return { userID, synced, local };
  }

  it("B4 answers loginAllow and allowCredentials with the user's passkeys", async () => {
    const { userID, synced, local } = await userWithTwoPasskeys();
    const r = await loginStart(userID);
    expect(r.status).toBe(200);
    // The interface's shape, and beside it the reference's flat fields the published Node SDK reads, with the same facts.
    expect(Object.keys(r.body).sort()).toEqual(['assertionOptions', 'credentialCount', 'decisionInsights', 'decisionTag', 'detectionInsights', 'detectionTags', 'isCDACandidate', 'loginAllow']);
    expect({ decisionTag: r.body.decisionTag, detectionTags: r.body.detectionTags, credentialCount: r.body.credentialCount, isCDACandidate: r.body.isCDACandidate }).toEqual({
      decisionTag: r.body.decisionInsights.tag,
      detectionTags: r.body.detectionInsights.tags,
      credentialCount: 2,
      isCDACandidate: r.body.decisionInsights.isCDACandidate,
    });
    expect(r.body.loginAllow).toBe(true);
    const options = JSON.parse(r.body.assertionOptions);
    expect(Object.keys(options)).toEqual(['publicKey']);
    expect(options.publicKey).toEqual({
      rpId: 'localhost',
      challenge: expect.stringMatching(B64URL),
      allowCredentials: [
        { id: synced.credential.id, type: 'public-key', transports: ['hybrid', 'internal'] },
        { id: local.credential.id, type: 'public-key', transports: ['internal'] },
      ],
      timeout: 300_000,
      userVerification: 'required',
    });
    expect(r.body.detectionInsights).toEqual({
      tags: [
        { category: 'support', name: 'platform-authenticator' },
        { category: 'support', name: 'conditional-mediation' },
        { category: 'clientEnv', name: 'known-env' },
        { category: 'passkey', name: 'user-has-passkeys' },
        { category: 'passkey', name: 'env-has-passkey' },
      ],
      credentialIds: [synced.passkeyData.id, local.passkeyData.id],
      clientEnvIds: [expect.stringMatching(/\S/)],
      passwordManagerIds: [],
      historyData: {
        defaultCount: 2,
        afterErrorCount: 0,
        afterHybridCount: 0,
        autoCount: 0,
        defaultCooldown: false,
        afterErrorCooldown: false,
        afterHybridCooldown: false,
        autoCooldown: false,
        conditionalCreateCooldown: false,
        inAppCooldown: false,
      },
    });
    expect(r.body.decisionInsights).toEqual({ tag: 'user-platform-pk-high-confidence', isCDACandidate: false, experiments: [], preferImmediatelyAvailable: true });
  });

  it('the cross-device strategy shapes transports and hints', async () => {
    const { userID } = await userWithTwoPasskeys();
    const offered = async (strategy: Strategy) => {
      const r = await loginStart(userID, strategy);
      expect(r.status).toBe(200);
      const { allowCredentials, hints } = JSON.parse(r.body.assertionOptions).publicKey;
      return { transports: allowCredentials.map((c: { transports: string[] }) => c.transports), hints };
    };
    expect(await offered('standard')).toEqual({ transports: [['hybrid', 'internal'], ['internal']], hints: undefined });
    expect(await offered('minimize')).toEqual({ transports: [['internal'], ['internal']], hints: ['client-device'] });
    expect(await offered('maximize')).toEqual({ transports: [['hybrid', 'internal'], ['internal', 'hybrid']], hints: ['hybrid'] });
  });

  it('B5 verifies the assertion and answers passkeyData; a replay is 409', async () => {
    const { userID, local } = await userWithTwoPasskeys();
    const { assertion, finish } = await login(userID, local);
    expect(finish.status).toBe(200);
    expect(Object.keys(finish.body)).toEqual(['passkeyData']);
    expectPasskeyData(finish.body.passkeyData, { userID });
    expect(finish.body.passkeyData.id).toBe(local.passkeyData.id);
    expect(finish.body.passkeyData.challengeID).not.toBe(local.passkeyData.challengeID);
    expectError(await loginFinish(userID, assertion), 409, 'challenge_not_found_or_used');
  });

  it('B5 with signPasskeyData returns a JWT that verifies against the project JWKS', async () => {
    const { userID, synced } = await userWithTwoPasskeys();
    const { finish } = await login(userID, synced, { sign: true });
    expect(finish.status).toBe(200);
    expect(Object.keys(finish.body).sort()).toEqual(['passkeyData', 'signedPasskeyData']);
    expectPasskeyData(finish.body.passkeyData, { userID });
    const token = finish.body.signedPasskeyData as string;
    expect(decodeProtectedHeader(token).alg).toBe('ES256');
    await expectSignedPasskeyData(token, project, finish.body.passkeyData, remoteJwks(project));
    // Another project's keys do not verify it.
    await expect(jwtVerify(token, remoteJwks(other))).rejects.toThrow();
    // signPasskeyData false: no token.
    const unsigned = await login(userID, synced, { sign: false });
    expect(Object.keys(unsigned.finish.body)).toEqual(['passkeyData']);
  });

  it("B5 refuses another user's passkey with 404 credential_not_found", async () => {
    const { userID } = await userWithTwoPasskeys();
    const stranger = await createUser(project, 'Grace Hopper');
    const strangers = await register(stranger, { username: 'grace@example.com' });
    const start = await loginStart(userID);
    const assertion = strangers.auth.getFromOptions(start.body.assertionOptions, strangers.credential, ORIGIN);
    expectError(await loginFinish(userID, assertion), 404, 'credential_not_found');
  });

  it('B4 for an unknown user is 404 user_not_found', async () => {
    expectError(await loginStart('usr-12345'), 404, 'user_not_found');
  });
});

describe('B6/B7 conditional-UI login', () => {
  it('B6 answers loginAllow and assertionOptions without allowCredentials', async () => {
    const r = await mediationStart({ processID: 'proc-mediation' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['assertionOptions', 'loginAllow']);
    expect(r.body.loginAllow).toBe(true);
    const options = JSON.parse(r.body.assertionOptions);
    expect(options).toEqual({ publicKey: { rpId: 'localhost', challenge: expect.stringMatching(B64URL), timeout: 300_000, userVerification: 'required' } });

    const noAutofill = await mediationStart({ clientInformation: { ...backendClientInformation, conditionalMediationAvailable: false } });
    expect(noAutofill.status).toBe(200);
    expect(noAutofill.body.loginAllow).toBe(false);
  });

  it('B7 identifies the user from a discoverable assertion, signed on request', async () => {
    const userID = await createUser();
    const reg = await register(userID);
    const plain = await mediate(reg);
    expect(plain.finish.status).toBe(200);
    expect(Object.keys(plain.finish.body)).toEqual(['passkeyData']);
    expectPasskeyData(plain.finish.body.passkeyData, { userID });
    expect(plain.finish.body.passkeyData.id).toBe(reg.passkeyData.id);

    const signed = await mediate(reg, { sign: true });
    expect(signed.finish.status).toBe(200);
    expect(Object.keys(signed.finish.body).sort()).toEqual(['passkeyData', 'signedPasskeyData']);
    await expectSignedPasskeyData(signed.finish.body.signedPasskeyData, project, signed.finish.body.passkeyData, await localJwks(project));

    // A replay finds no open ceremony.
    expectError(await mediationFinish(signed.assertion), 409, 'challenge_not_found_or_used');
  });

  it('B7 finishes a B6 started without processID under any process', async () => {
    const userID = await createUser();
    const reg = await register(userID);
    const start = await mediationStart();
    const assertion = reg.auth.getFromOptions(start.body.assertionOptions, reg.credential, ORIGIN);
    const r = await mediationFinish(assertion, { processID: 'proc-anything' });
    expect(r.status).toBe(200);
    expect(r.body.passkeyData.userID).toBe(userID);
  });

  it('B7 with a passkey deleted through the API answers credentialDeleted and no passkeyData', async () => {
    const userID = await createUser();
    const reg = await register(userID);
    expectGenericRsp(await deleteCredential(userID, reg.passkeyData.id));
    const { finish } = await mediate(reg, { sign: true });
    expect(finish.status).toBe(200);
    expect(finish.body).toEqual({ error: { type: 'credentialDeleted' } });
    // B4 no longer offers it, and B5 refuses it.
    const start = await loginStart(userID);
    expect(JSON.parse(start.body.assertionOptions).publicKey.allowCredentials).toEqual([]);
    const assertion = reg.auth.getFromOptions(start.body.assertionOptions, reg.credential, ORIGIN);
    expectError(await loginFinish(userID, assertion), 404, 'credential_not_found');
  });
});

describe('passkey management', () => {
  it("GET /v2/users/{userID}/credentials lists the user's passkeys in the reference shape", async () => {
    const userID = await createUser();
    const first = await register(userID);
    const second = await register(userID, { auth: new SoftAuthenticator({ aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4', attachment: 'cross-platform', transports: ['usb', 'nfc'] }), flags: { forcePasskeyAppend: true } });
    const r = await listCredentials(userID);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['credentials', 'paging']);
    expect(r.body.paging).toEqual({ page: 1, totalPages: 1, totalItems: 2 });
    const [a, b] = r.body.credentials;
    expect(a).toEqual({
      id: first.passkeyData.id,
      credentialID: first.credential.id,
      attestationType: 'none',
      transport: ['hybrid', 'internal'],
      backupEligible: true,
      backupState: false,
      authenticatorAAGUID: ZERO_AAGUID,
      sourceOS: 'Linux',
      sourceBrowser: 'Chrome',
      lastUsed: expect.stringMatching(TIMESTAMP),
      created: expect.stringMatching(TIMESTAMP),
      status: 'active',
      aaguidDetails: { aaguid: ZERO_AAGUID, name: 'Passkey', iconLight: expect.stringMatching(DATA_URI), iconDark: expect.stringMatching(DATA_URI) },
    });
    expect(b).toMatchObject({
      id: second.passkeyData.id,
      credentialID: second.credential.id,
      transport: ['nfc', 'usb'],
      backupEligible: false,
      authenticatorAAGUID: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4',
      status: 'active',
      aaguidDetails: { aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4', name: 'Google Password Manager' },
    });
    // A login moves lastUsed, never created.
    expect((await login(userID, first)).finish.status).toBe(200);
    const after = (await listCredentials(userID)).body.credentials[0];
    expect(after.created).toBe(a.created);
    expect(after.lastUsed >= a.lastUsed).toBe(true);

    const paged = await listCredentials(userID, project, '?sort=created:desc&page=1&pageSize=1');
    expect(paged.status).toBe(200);
    expect(paged.body.paging).toEqual({ page: 1, totalPages: 2, totalItems: 2 });
    expect(paged.body.credentials.map((c: { id: string }) => c.id)).toEqual([second.passkeyData.id]);
    expectError(await listCredentials(userID, project, '?sort=name:asc'), 400, 'validation_error', ['sort']);
  });

  it('DELETE answers genericRsp; an unknown or already deleted passkey is 404, a malformed ID 400', async () => {
    const userID = await createUser();
    const keep = await register(userID);
    const drop = await register(userID, { flags: { forcePasskeyAppend: true } });
    expectGenericRsp(await deleteCredential(userID, drop.passkeyData.id));
    expect((await listCredentials(userID)).body.credentials.map((c: { id: string }) => c.id)).toEqual([keep.passkeyData.id]);
    expectError(await deleteCredential(userID, drop.passkeyData.id), 404, 'credential_not_found');
    expectError(await deleteCredential(await createUser(), keep.passkeyData.id), 404, 'credential_not_found');
    const malformed = await deleteCredential(userID, 'cre-abc');
    expectError(malformed, 400, 'validation_error');
    expect(malformed.body.error.validation.map((v: { field: string }) => v.field)).toContain('credentialID');
    expect((await listCredentials(userID)).body.paging.totalItems).toBe(1);
  });

  it('deleting the user removes its passkeys: the list is 404 and B7 answers credentialDeleted', async () => {
    const userID = await createUser();
    const reg = await register(userID);
    const survivor = await createUser(project, 'Grace Hopper');
    const kept = await register(survivor, { username: 'grace@example.com' });

    expectGenericRsp(await call(`/v2/users/${userID}`, { method: 'DELETE' }));
    expect(await stack.db.collection('credentials').countDocuments({ userId: userID })).toBe(0);
    expectError(await listCredentials(userID), 404, 'user_not_found');
    const { finish } = await mediate(reg, { sign: true });
    expect(finish.status).toBe(200);
    expect(finish.body).toEqual({ error: { type: 'credentialDeleted' } });
    expectError(await loginStart(userID), 404, 'user_not_found');
    expectError(await appendStart(userID), 404, 'user_not_found');

    // Other users keep theirs.
    expect((await listCredentials(survivor)).body.credentials.map((c: { id: string }) => c.id)).toEqual([kept.passkeyData.id]);
    expect((await mediate(kept)).finish.body.passkeyData.userID).toBe(survivor);
  });
});

describe('projects are isolated', () => {
  it("a credential of project A does not log in to project B (B5 404, B7 credentialDeleted) and still works in A", async () => {
    const userA = await createUser(project);
    const regA = await register(userA);
    const userB = await createUser(other, 'Grace Hopper');

    const startB = await loginStart(userB, 'standard', other);
    expect(startB.status).toBe(200);
    const forB = regA.auth.getFromOptions(startB.body.assertionOptions, regA.credential, ORIGIN_B);
    expectError(await loginFinish(userB, forB, { as: other }), 404, 'credential_not_found');
    // Naming A's user in B does not help.
    expectError(await loginFinish(userA, forB, { as: other }), 404, 'credential_not_found');

    const { finish } = await mediate(regA, { as: other, origin: ORIGIN_B, sign: true });
    expect(finish.status).toBe(200);
    expect(finish.body).toEqual({ error: { type: 'credentialDeleted' } });

    expect((await mediate(regA)).finish.body.passkeyData.id).toBe(regA.passkeyData.id);
  });

  it("project B's credentials cannot see, delete or start ceremonies for project A's user", async () => {
    const userA = await createUser(project);
    const regA = await register(userA);

    const list = await listCredentials(userA, other);
    expectError(list, 404, 'user_not_found');
    expect(JSON.stringify(list.body)).not.toContain(regA.credential.id);
    expectError(await deleteCredential(userA, regA.passkeyData.id, other), 404, 'credential_not_found');
    expectError(await appendStart(userA, { as: other }), 404, 'user_not_found');
    expectError(await loginStart(userA, 'standard', other), 404, 'user_not_found');
    // A ceremony of A cannot be finished through B.
    const start = await appendStart(userA);
    const { json: response } = new SoftAuthenticator().createFromOptions(start.body.attestationOptions, ORIGIN);
    expectError(await appendFinish(userA, response, { as: other }), 409, 'challenge_not_found_or_used');

    expect((await listCredentials(userA)).body.credentials.map((c: { id: string }) => c.id)).toEqual([regA.passkeyData.id]);
  });

  it('the passkey endpoints need valid Basic credentials', async () => {
    const r = await call('/v2/passkey/mediation/start', { auth: basic({ projectID: project.projectID, apiSecret: other.apiSecret }), body: { clientInformation: backendClientInformation } });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(r.body).not.toHaveProperty('assertionOptions');
  });
});

describe('bad input', () => {
  /** Malformed attestation/assertion documents: not JSON, wrong types, bad base64url, bad structure. */
  function malformed(valid: Record<string, any>): unknown[] {
    const response = valid.response as Record<string, unknown>;
    return [
      'not json {',
      '[1,2,3]',
      { ...valid, id: 42 },
      { ...valid, type: 'password' },
      { ...valid, response: 'nope' },
      { ...valid, response: { ...response, clientDataJSON: 7 } },
      { ...valid, response: { ...response, clientDataJSON: 'not*base64url!' } },
      { ...valid, id: 'x', rawId: 'x' },
      { ...valid, response: { ...response, clientDataJSON: Buffer.from('not json').toString('base64url') } },
    ];
  }

  it('B3 rejects a malformed attestationResponse with 400 naming it, and the ceremony stays open', async () => {
    const userID = await createUser();
    const start = await appendStart(userID);
    const { json: valid } = new SoftAuthenticator().createFromOptions(start.body.attestationOptions, ORIGIN);
    for (const bad of malformed(valid)) {
      expectError(await appendFinish(userID, bad), 400, 'validation_error', ['attestationResponse']);
    }
    const attestationObject = (valid.response as Record<string, string>).attestationObject;
    expectError(await appendFinish(userID, { ...valid, response: { ...(valid.response as object), attestationObject: attestationObject.slice(0, 20) } }), 400, 'validation_error', ['attestationResponse']);
    // Wrong JSON types of the field itself, and an empty one.
    for (const attestationResponse of [42, { id: 'x' }, ['x'], true, '']) {
      const r = await call('/v2/passkey/append/finish', {
        body: { userID, processID: 'proc-append', attestationResponse, trackingID: 'trk', clientInformation: backendClientInformation },
      });
      expectError(r, 400, 'validation_error', ['attestationResponse']);
    }
    expect((await appendFinish(userID, valid)).status).toBe(200);
  });

  it('B5 and B7 reject a malformed assertionResponse with 400 naming it, and the ceremonies stay open', async () => {
    const userID = await createUser();
    const reg = await register(userID);
    const login = await loginStart(userID);
    const validLogin = reg.auth.getFromOptions(login.body.assertionOptions, reg.credential, ORIGIN);
    const mediation = await mediationStart({ processID: 'proc-mediation' });
    const validMediation = reg.auth.getFromOptions(mediation.body.assertionOptions, reg.credential, ORIGIN);
    const extra = (valid: Record<string, any>) => [
      ...malformed(valid),
      { ...valid, response: { ...valid.response, signature: 'a' } },
      { ...valid, response: { ...valid.response, userHandle: '%%%' } },
      { ...valid, response: { ...valid.response, authenticatorData: Buffer.from('short').toString('base64url') } },
    ];
    for (const bad of extra(validLogin)) expectError(await loginFinish(userID, bad), 400, 'validation_error', ['assertionResponse']);
    for (const bad of extra(validMediation)) expectError(await mediationFinish(bad), 400, 'validation_error', ['assertionResponse']);
    for (const assertionResponse of [42, { id: 'x' }, '']) {
      const r5 = await call('/v2/passkey/login/finish', { body: { userID, processID: 'proc-login', assertionResponse, trackingID: 'trk', clientInformation: backendClientInformation } });
      expectError(r5, 400, 'validation_error', ['assertionResponse']);
      const r7 = await call('/v2/passkey/mediation/finish', { body: { processID: 'proc-mediation', assertionResponse, trackingID: 'trk', clientInformation: backendClientInformation } });
      expectError(r7, 400, 'validation_error', ['assertionResponse']);
    }
    expect((await loginFinish(userID, validLogin)).status).toBe(200);
    expect((await mediationFinish(validMediation)).body.passkeyData.userID).toBe(userID);
  });

  it('B4 rejects a crossDeviceAuthenticationStrategy outside the enum', async () => {
    const userID = await createUser();
    for (const crossDeviceAuthenticationStrategy of ['aggressive', 'STANDARD', '', 1]) {
      const r = await call('/v2/passkey/login/start', { body: { userID, processID: 'proc-login', clientInformation: backendClientInformation, crossDeviceAuthenticationStrategy } });
      expectError(r, 400, 'validation_error', ['crossDeviceAuthenticationStrategy']);
      expect(r.body).not.toHaveProperty('assertionOptions');
    }
  });

  it('every passkey endpoint rejects a missing clientInformation', async () => {
    const userID = await createUser();
    const bodies: Record<string, Record<string, unknown>> = {
      '/v2/passkey/append/start': { userID, processID: 'p', username: 'ada@example.com', passkeyIntelFlags: {}, situation: 'default' },
      '/v2/passkey/append/finish': { userID, processID: 'p', attestationResponse: '{}', trackingID: 't' },
      '/v2/passkey/login/start': { userID, processID: 'p', crossDeviceAuthenticationStrategy: 'standard' },
      '/v2/passkey/login/finish': { userID, processID: 'p', assertionResponse: '{}', trackingID: 't' },
      '/v2/passkey/mediation/start': { processID: 'p' },
      '/v2/passkey/mediation/finish': { processID: 'p', assertionResponse: '{}', trackingID: 't' },
    };
    for (const [path, body] of Object.entries(bodies)) {
      const r = await call(path, { body });
      expect(r.status, path).toBe(400);
      expectError(r, 400, 'validation_error', ['clientInformation']);
    }
    // Present but incomplete: the required flags are named.
    const partial = await call('/v2/passkey/mediation/start', { body: { clientInformation: { remoteAddress: '::1', userAgent: 'x' } } });
    expectError(partial, 400, 'validation_error');
    expect(partial.body.error.validation.map((v: { field: string }) => v.field).sort()).toEqual([
      'clientInformation.conditionalMediationAvailable',
      'clientInformation.userVerifyingPlatformAuthenticatorAvailable',
    ]);
  });

  it('B2 rejects a malformed userID and a missing passkeyIntelFlags', async () => {
    const r = await call('/v2/passkey/append/start', { body: { userID: 'ada', processID: 'p', username: 'ada@example.com', clientInformation: backendClientInformation, situation: 'default' } });
    expectError(r, 400, 'validation_error');
    expect(r.body.error.validation.map((v: { field: string }) => v.field).sort()).toEqual(['passkeyIntelFlags', 'userID']);
  });
});
