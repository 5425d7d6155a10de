/**
 * Drop-in test of the backend operations issue #31 added, driven only by the published Node SDK's
 * generated OpenAPI clients (@corbado/node-sdk 3.x, esm/generated/api.js), unchanged: each client
 * runs on the axios instance the SDK itself builds (`SDK.createClient(config)`: base URL
 * `{backendAPI}/v2`, Basic auth, its X-Corbado-* headers), exactly as the SDK's own UserService
 * does. Every generated method of the 16 operations is called, and the test asserts what the SDK
 * deserialises (its models' fields and enums), not only the status:
 *   UsersApi.userUpdate, socialAccountCreate, userSocialAccountList, socialAccountList;
 *   SessionsApi.longSessionCreate, userLongSessionGet, longSessionGet, longSessionUpdate, shortSessionCreate;
 *   AuthEventsApi.authEventCreate; PasskeyEventsApi.passkeyEventCreate, passkeyEventList, passkeyEventDelete;
 *   PasskeyChallengesApi.passkeyChallengeList, passkeyChallengeUpdate; ProjectConfigApi.projectConfigUpdateCNAME.
 * The ceremonies that make passkey challenges run through the SDK's PasskeysApi too.
 */
import { Config, SDK } from '@corbado/node-sdk';
import type { AxiosError, AxiosInstance } from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The package exports only SDK and Config; the generated clients are the reference's own request
// and answer shapes, so the test imports them by path (as test/e2e/applicationSessions.test.ts does).
import {
  AuthEventMethod,
  AuthEventsApi,
  AuthEventStatus,
  ChallengesApi,
  ConnectTokensApi,
  AuthEventType,
  LongSessionStatus,
  PasskeyChallengesApi,
  PasskeyChallengeStatus,
  PasskeyChallengeType,
  PasskeyEventsApi,
  PasskeyEventType,
  PasskeysApi,
  ProjectConfigApi,
  SessionsApi,
  SocialProviderType,
  UsersApi,
  UserStatus,
  type ClientInformation,
  type SocialAccountCreateReq,
} from '../../node_modules/@corbado/node-sdk/esm/generated/index.js';
import { SoftAuthenticator, type SoftCredential } from '../kit/softAuthenticator.js';
import { startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';
/** The reference's timestamp strings (`created`, `expires` of a long session). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

/** The SDK's ClientInformation model, as an application's backend forwards it. */
const clientInformation: ClientInformation = {
  remoteAddress: '::ffff:127.0.0.1',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  userVerifyingPlatformAuthenticatorAvailable: true,
  conditionalMediationAvailable: true,
  bluetoothAvailable: false,
  passwordManagerAvailable: false,
  javaScriptHighEntropy: { platform: 'Linux', platformVersion: '6.5.0', mobile: false },
};

/** The generated clients of one project, on the SDK's own axios instance. */
interface Clients {
  sdk: SDK;
  users: UsersApi;
  sessions: SessionsApi;
  authEvents: AuthEventsApi;
  passkeyEvents: PasskeyEventsApi;
  passkeyChallenges: PasskeyChallengesApi;
  passkeys: PasskeysApi;
  projectConfig: ProjectConfigApi;
  challenges: ChallengesApi;
  connectTokens: ConnectTokensApi;
}

function clientsOf(project: ProjectJson): Clients {
  const config = new Config(project.projectID, project.apiSecret, project.frontendApiUrl, project.backendApiUrl);
  const sdk = new SDK(config);
  // What the SDK's services do: `new UsersApi(undefined, '', axiosClient)` on the instance createClient builds.
  const axios: AxiosInstance = sdk.createClient(config);
  return {
    sdk,
    users: new UsersApi(undefined, '', axios),
    sessions: new SessionsApi(undefined, '', axios),
    authEvents: new AuthEventsApi(undefined, '', axios),
    passkeyEvents: new PasskeyEventsApi(undefined, '', axios),
    passkeyChallenges: new PasskeyChallengesApi(undefined, '', axios),
    passkeys: new PasskeysApi(undefined, '', axios),
    projectConfig: new ProjectConfigApi(undefined, '', axios),
    challenges: new ChallengesApi(undefined, '', axios),
    connectTokens: new ConnectTokensApi(undefined, '', axios),
  };
}

let stack: Stack;
let A: ProjectJson;
let B: ProjectJson;
let a: Clients;
let b: Clients;

beforeAll(async () => {
  stack = await startStack();
  A = await stack.createProject('node-sdk-ops-a', [ORIGIN]);
  B = await stack.createProject('node-sdk-ops-b', ['http://localhost:4000']);
  a = clientsOf(A);
  b = clientsOf(B);
}, 120_000);
afterAll(async () => stack?.stop());

/** What a rejected generated call carries: axios's error with our errorRsp as its data. */
async function failure(call: Promise<unknown>): Promise<{ status: number; type: string; fields: string[] }> {
  const err = (await call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  )) as AxiosError<{ httpStatusCode: number; error: { type: string; validation?: { field: string }[] } }>;
  expect(err.isAxiosError, String(err)).toBe(true);
  const data = err.response!.data;
  expect(data.httpStatusCode).toBe(err.response!.status);
  return { status: err.response!.status, type: data.error.type, fields: (data.error.validation ?? []).map((v) => v.field) };
}

/** A user with one verified email address, made through the SDK's own services. */
async function newUser(c: Clients, fullName: string, email: string): Promise<string> {
  const user = await c.sdk.users().createActiveByName(fullName);
  await c.sdk.identifiers().create(user.userID, { identifierType: 'email', identifierValue: email, status: 'verified' });
  return user.userID;
}

/**
 * B2 → authenticator → B3 through the SDK's PasskeysApi with exactly its models (no `situation`,
 * no `trackingID`: SDK 3.0.2 sends neither, and the gateway takes both as optional).
 */
async function register(userID: string, username: string): Promise<{ auth: SoftAuthenticator; credential: SoftCredential }> {
  const auth = new SoftAuthenticator({ flags: { be: true } });
  const start = (await a.passkeys.passkeyAppendStart({ userID, processID: 'proc-append', username, clientInformation, passkeyIntelFlags: { forcePasskeyAppend: false } })).data;
  expect(start.appendAllow).toBe(true);
  const { json, credential } = auth.createFromOptions(start.attestationOptions, ORIGIN);
  const finish = (await a.passkeys.passkeyAppendFinish({ userID, processID: 'proc-append', attestationResponse: JSON.stringify(json), clientInformation })).data;
  expect(finish.passkeyData.userID).toBe(userID);
  return { auth, credential };
}

const loginStart = (userID: string) => a.passkeys.passkeyLoginStart({ userID, processID: 'proc-login', clientInformation, crossDeviceAuthenticationStrategy: 'standard' });

describe('UsersApi.userUpdate (PATCH /v2/users/{userID})', () => {
  it('changes the full name and the status and answers the SDK\'s User', async () => {
    const user = await a.sdk.users().createActiveByName('Ada Byron');
    const renamed = (await a.users.userUpdate(user.userID, { fullName: 'Ada Lovelace' })).data;
    expect(renamed).toEqual({ ...user, fullName: 'Ada Lovelace' });
    const disabled = (await a.users.userUpdate(user.userID, { status: UserStatus.Disabled })).data;
    expect(disabled).toMatchObject({ userID: user.userID, fullName: 'Ada Lovelace', status: 'disabled' });
    expect((await a.users.userGet(user.userID)).data).toEqual(disabled);
  });

  it('refuses a status outside the enum naming the field, and another project\'s user with 404', async () => {
    const user = await a.sdk.users().createActiveByName('Grace Hopper');
    expect(await failure(a.users.userUpdate(user.userID, { status: 'archived' as UserStatus }))).toMatchObject({ status: 400, fields: ['status'] });
    expect(await failure(b.users.userUpdate(user.userID, { fullName: 'Mallory' }))).toMatchObject({ status: 404, type: 'user_not_found' });
    expect((await a.users.userGet(user.userID)).data.fullName).toBe('Grace Hopper');
  });
});

describe('SessionsApi (long and short sessions)', () => {
  it('create → get (both routes) → short session the SDK validates → revoke reads back revoked, and no short session follows', async () => {
    const userID = await newUser(a, 'Hedy Lamarr', 'hedy@example.com');
    const long = (await a.sessions.longSessionCreate(userID, { appType: 'web', identifierValue: 'Hedy@Example.com' })).data;
    expect(long).toEqual({ longSessionID: expect.stringMatching(/^ses-[0-9]+$/), userID, identifierValue: 'hedy@example.com', status: LongSessionStatus.Active, expires: expect.stringMatching(TIMESTAMP) });
    // The reference's default lifetime of a long session: about 30 days ahead.
    expect(Math.abs(Date.parse(long.expires) - Date.now() - 30 * 86_400_000)).toBeLessThan(60_000);
    expect((await a.sessions.longSessionGet(long.longSessionID)).data).toEqual(long);
    expect((await a.sessions.userLongSessionGet(userID, long.longSessionID)).data).toEqual(long);

    const short = (await a.sessions.shortSessionCreate(userID, long.longSessionID, { appType: 'web', issuer: A.frontendApiUrl })).data;
    expect(Object.keys(short)).toEqual(['value']);
    // A short session is a session token signed with the project's key: the SDK's own validator accepts it.
    await expect(a.sdk.sessions().validateToken(short.value)).resolves.toEqual({ userId: userID, fullName: 'Hedy Lamarr' });

    const revoked = (await a.sessions.longSessionUpdate(userID, long.longSessionID, { status: LongSessionStatus.Revoked })).data;
    expect(revoked).toEqual({ ...long, status: 'revoked' });
    expect((await a.sessions.longSessionGet(long.longSessionID)).data.status).toBe(LongSessionStatus.Revoked);
    expect((await a.sessions.userLongSessionGet(userID, long.longSessionID)).data.status).toBe(LongSessionStatus.Revoked);
    expect(await failure(a.sessions.shortSessionCreate(userID, long.longSessionID, { appType: 'web', issuer: A.frontendApiUrl }))).toMatchObject({ status: 409, type: 'session_ended' });
  });

  it('refuses the statuses only the service records, a foreign issuer, and another project\'s session', async () => {
    const userID = await newUser(a, 'Joan Clarke', 'joan@example.com');
    const long = (await a.sessions.longSessionCreate(userID, { appType: 'native', identifierValue: 'joan@example.com' })).data;
    // logged_out, expired and inactivity_reached are what the service records (a logout, an expiry, an idle timeout).
    for (const status of [LongSessionStatus.LoggedOut, LongSessionStatus.Expired, LongSessionStatus.InactivityReached, LongSessionStatus.Active]) {
      expect(await failure(a.sessions.longSessionUpdate(userID, long.longSessionID, { status })), status).toMatchObject({ status: 400, fields: ['status'] });
    }
    expect(await failure(a.sessions.shortSessionCreate(userID, long.longSessionID, { appType: 'native', issuer: 'https://elsewhere.example.com' }))).toMatchObject({ status: 400, fields: ['issuer'] });
    expect(await failure(a.sessions.longSessionCreate(userID, { appType: 'web', identifierValue: 'someone-else@example.com' }))).toMatchObject({ status: 400, fields: ['identifierValue'] });
    expect(await failure(b.sessions.longSessionGet(long.longSessionID))).toMatchObject({ status: 404, type: 'session_not_found' });
    expect(await failure(b.sessions.userLongSessionGet(userID, long.longSessionID))).toMatchObject({ status: 404 });
    expect(await failure(b.sessions.longSessionUpdate(userID, long.longSessionID, { status: LongSessionStatus.Revoked }))).toMatchObject({ status: 404 });
    expect((await a.sessions.longSessionGet(long.longSessionID)).data.status).toBe(LongSessionStatus.Active);
  });
});

describe('AuthEventsApi.authEventCreate', () => {
  it('records an application-reported login and answers the SDK\'s AuthEvent', async () => {
    const userID = await newUser(a, 'Alan Turing', 'alan@example.com');
    const event = (
      await a.authEvents.authEventCreate(userID, { username: 'alan@example.com', eventType: AuthEventType.Login, method: AuthEventMethod.Password, status: AuthEventStatus.Failure, clientInformation })
    ).data;
    expect(event).toEqual({ authEventID: expect.any(String), userID, username: 'alan@example.com', eventType: 'login', method: 'password', status: 'failure', created: expect.stringMatching(TIMESTAMP) });
    expect(Math.abs(Date.parse(`${event.created}Z`) - Date.now())).toBeLessThan(60_000);
    for (const method of Object.values(AuthEventMethod)) {
      const r = (await a.authEvents.authEventCreate(userID, { username: 'alan@example.com', eventType: AuthEventType.SignUp, method, status: AuthEventStatus.Success, clientInformation })).data;
      expect(r.method).toBe(method);
    }
    expect(await failure(b.authEvents.authEventCreate(userID, { username: 'alan@example.com', eventType: 'login', method: 'password', status: 'success', clientInformation }))).toMatchObject({ status: 404, type: 'user_not_found' });
  });
});

describe('PasskeyEventsApi', () => {
  it('creates every event type, lists them with paging, filter and sort, and deletes one', async () => {
    const userID = await newUser(a, 'Radia Perlman', 'radia@example.com');
    const expires = Math.floor(Date.now() / 1000) + 3600;
    const created = [];
    for (const eventType of Object.values(PasskeyEventType)) {
      const e = (await a.passkeyEvents.passkeyEventCreate(userID, { eventType, expires, processID: 'proc-1', clientEnvID: 'ceh-1', credentialID: 'cre-1' })).data;
      expect(e).toEqual({ passkeyEventID: expect.stringMatching(/^pke-[0-9]+$/), userID, eventType, expires, processID: 'proc-1', clientEnvID: 'ceh-1', credentialID: 'cre-1', created: expect.stringMatching(TIMESTAMP) });
      created.push(e);
    }
    const total = created.length;

    const page2 = (await a.passkeyEvents.passkeyEventList(userID, 'created:asc', undefined, 2, 3)).data;
    expect(page2.paging).toEqual({ page: 2, totalPages: Math.ceil(total / 3), totalItems: total });
    expect(page2.passkeyEvents).toEqual(created.slice(3, 6));
    const filtered = (await a.passkeyEvents.passkeyEventList(userID, undefined, ['eventType:eq:login-error'])).data;
    expect(filtered).toEqual({ passkeyEvents: [created.find((e) => e.eventType === 'login-error')], paging: { page: 1, totalPages: 1, totalItems: 1 } });

    const del = (await a.passkeyEvents.passkeyEventDelete(userID, created[0].passkeyEventID)).data;
    expect(del).toMatchObject({ httpStatusCode: 200, message: 'OK', requestData: { requestID: expect.any(String) }, runtime: expect.any(Number) });
    expect((await a.passkeyEvents.passkeyEventList(userID)).data.paging.totalItems).toBe(total - 1);
    expect(await failure(a.passkeyEvents.passkeyEventDelete(userID, created[0].passkeyEventID))).toMatchObject({ status: 404, type: 'passkey_event_not_found' });
    expect(await failure(b.passkeyEvents.passkeyEventList(userID))).toMatchObject({ status: 404, type: 'user_not_found' });
    expect(await failure(a.passkeyEvents.passkeyEventList(userID, 'userID:asc'))).toMatchObject({ status: 400, fields: ['sort'] });
  });

  it('a user-login-blacklisted event changes the next login decision until it is deleted', async () => {
    const userID = await newUser(a, 'Barbara Liskov', 'barbara@example.com');
    await register(userID, 'barbara@example.com');
    expect((await loginStart(userID)).data.loginAllow).toBe(true);
    const ev = (await a.passkeyEvents.passkeyEventCreate(userID, { eventType: PasskeyEventType.UserLoginBlacklisted, expires: Math.floor(Date.now() / 1000) + 600 })).data;
    const refused = (await loginStart(userID)).data;
    expect(refused.loginAllow).toBe(false);
    expect(refused.decisionTag).toBe('user-login-blacklisted');
    expect(refused.credentialCount).toBe(1);
    await a.passkeyEvents.passkeyEventDelete(userID, ev.passkeyEventID);
    expect((await loginStart(userID)).data.loginAllow).toBe(true);
  });
});

describe('PasskeysApi (B2–B7) with the SDK\'s own models', () => {
  it('reads the reference\'s flat fields of B2 and B4, and logs in with B4/B5 and B6/B7', async () => {
    const userID = await newUser(a, 'Annie Easley', 'annie@example.com');
    const append = (await a.passkeys.passkeyAppendStart({ userID, processID: 'proc-a', username: 'annie@example.com', clientInformation, passkeyIntelFlags: { forcePasskeyAppend: false } })).data;
    expect(append).toMatchObject({ appendAllow: true, decisionTag: 'user-no-pks', credentialCount: 0, attestationOptions: expect.any(String) });
    expect(append.detectionTags).toContainEqual({ category: 'passkey', name: 'user-no-passkeys' });
    const { auth, credential } = await register(userID, 'annie@example.com');

    const start = (await loginStart(userID)).data;
    expect(start).toMatchObject({ loginAllow: true, credentialCount: 1, isCDACandidate: false, decisionTag: expect.any(String) });
    expect(start.detectionTags).toContainEqual({ category: 'passkey', name: 'user-has-passkeys' });
    const finish = (await a.passkeys.passkeyLoginFinish({ userID, processID: 'proc-login', assertionResponse: JSON.stringify(auth.getFromOptions(start.assertionOptions, credential, ORIGIN)), clientInformation })).data;
    expect(finish.passkeyData).toMatchObject({ userID, username: 'annie@example.com', challengeID: expect.stringMatching(/^pch-/) });

    const mediation = (await a.passkeys.passkeyMediationStart({ clientInformation })).data;
    expect(mediation.loginAllow).toBe(true);
    const assertion = auth.getFromOptions(mediation.assertionOptions, credential, ORIGIN);
    const mediated = (await a.passkeys.passkeyMediationFinish({ assertionResponse: JSON.stringify(assertion), clientInformation, processID: 'proc-mediation' })).data;
    expect(mediated.passkeyData).toMatchObject({ id: finish.passkeyData.id, userID });
  });
});

describe('PasskeyChallengesApi', () => {
  it('lists the ceremony challenges with paging; a challenge marked consumed makes its finish fail', async () => {
    const userID = await newUser(a, 'Frances Allen', 'frances@example.com');
    const { auth, credential } = await register(userID, 'frances@example.com');
    const start = (await loginStart(userID)).data;
    const options = JSON.parse(start.assertionOptions);

    const list = (await a.passkeyChallenges.passkeyChallengeList(userID, 'created:desc', undefined, 1, 10)).data;
    expect(list.paging).toEqual({ page: 1, totalPages: 1, totalItems: 2 });
    const [login, append] = list.passkeyChallenges;
    expect(login).toEqual({ challengeID: expect.stringMatching(/^pch-[0-9]+$/), type: PasskeyChallengeType.Authenticate, value: options.publicKey.challenge, status: PasskeyChallengeStatus.Pending, created: expect.any(Number), expires: expect.any(Number) });
    expect(login.expires).toBeGreaterThan(login.created);
    expect(append).toMatchObject({ type: PasskeyChallengeType.Register, status: PasskeyChallengeStatus.Completed });
    const paged = (await a.passkeyChallenges.passkeyChallengeList(userID, 'created:desc', undefined, 2, 1)).data;
    expect(paged).toEqual({ passkeyChallenges: [append], paging: { page: 2, totalPages: 2, totalItems: 2 } });
    expect((await a.passkeyChallenges.passkeyChallengeList(userID, undefined, ['status:eq:pending'])).data.passkeyChallenges).toEqual([login]);

    const consumed = (await a.passkeyChallenges.passkeyChallengeUpdate(userID, login.challengeID, { status: PasskeyChallengeStatus.Consumed })).data;
    expect(consumed).toEqual({ ...login, status: 'consumed' });
    const assertion = auth.getFromOptions(start.assertionOptions, credential, ORIGIN);
    expect(await failure(a.passkeys.passkeyLoginFinish({ userID, processID: 'proc-login', assertionResponse: JSON.stringify(assertion), clientInformation }))).toMatchObject({ status: 409, type: 'challenge_not_found_or_used' });

    expect(await failure(a.passkeyChallenges.passkeyChallengeUpdate(userID, append.challengeID, { status: PasskeyChallengeStatus.Consumed }))).toMatchObject({ status: 409, type: 'passkey_challenge_completed' });
    expect(await failure(a.passkeyChallenges.passkeyChallengeUpdate(userID, login.challengeID, { status: PasskeyChallengeStatus.Completed }))).toMatchObject({ status: 400, fields: ['status'] });
    expect(await failure(b.passkeyChallenges.passkeyChallengeList(userID))).toMatchObject({ status: 404, type: 'user_not_found' });
    expect(await failure(b.passkeyChallenges.passkeyChallengeUpdate(userID, login.challengeID, { status: 'consumed' }))).toMatchObject({ status: 404 });
  });
});

describe('UsersApi social accounts', () => {
  const account = (over: Partial<SocialAccountCreateReq> = {}): SocialAccountCreateReq => ({
    providerType: SocialProviderType.Github,
    identifierValue: 'katherine@example.com',
    foreignID: '31415',
    avatarURL: 'https://avatars.example.com/u/31415',
    fullName: 'Katherine Johnson',
    ...over,
  });

  it('socialAccountCreate, then the user\'s list (a bare array) and the project\'s list (a page)', async () => {
    const userID = await newUser(a, 'Katherine Johnson', 'katherine@example.com');
    const github = (await a.users.socialAccountCreate(userID, account())).data;
    expect(github).toEqual({ socialAccountID: expect.stringMatching(/^soc-[0-9]+$/), userID, ...account() });
    const google = (await a.users.socialAccountCreate(userID, account({ providerType: SocialProviderType.Google, foreignID: '27182' }))).data;

    const mine = (await a.users.userSocialAccountList(userID, 'providerType:asc')).data;
    expect(mine).toEqual([github, google]);
    expect((await a.users.userSocialAccountList(userID, undefined, ['providerType:eq:google'])).data).toEqual([google]);

    const all = (await a.users.socialAccountList(undefined, [`userID:eq:${userID}`], 1, 1)).data;
    expect(all.paging).toEqual({ page: 1, totalPages: 2, totalItems: 2 });
    expect(all.socialAccounts).toHaveLength(1);
    expect((await a.users.socialAccountList(undefined, ['foreignID:eq:27182'])).data).toEqual({ socialAccounts: [google], paging: { page: 1, totalPages: 1, totalItems: 1 } });

    expect(await failure(a.users.socialAccountCreate(userID, account()))).toMatchObject({ status: 409, type: 'social_account_already_exists' });
    expect(await failure(b.users.userSocialAccountList(userID))).toMatchObject({ status: 404, type: 'user_not_found' });
    expect((await b.users.socialAccountList(undefined, [`userID:eq:${userID}`])).data).toEqual({ socialAccounts: [], paging: { page: 1, totalPages: 0, totalItems: 0 } });
  });
});

describe('ProjectConfigApi.projectConfigUpdateCNAME', () => {
  it('stores the host name and answers the SDK\'s GenericRsp; a URL is refused naming cname', async () => {
    const ok = (await a.projectConfig.projectConfigUpdateCNAME({ cname: 'Login.Example.com' })).data;
    expect(ok).toEqual({ httpStatusCode: 200, message: 'OK', requestData: { requestID: expect.any(String), link: expect.any(String) }, runtime: expect.any(Number) });
    expect((await stack.db.collection('projects').findOne({ _id: A.projectID } as never))!.cname).toBe('login.example.com');
    expect(await failure(a.projectConfig.projectConfigUpdateCNAME({ cname: 'https://login.example.com' }))).toMatchObject({ status: 400, fields: ['cname'] });
  });
});

describe('the other generated clients, for completeness', () => {
  it('ChallengesApi, ConnectTokensApi and UsersApi.credentialList/credentialDelete read our answers', async () => {
    const userID = await newUser(a, 'Mary Golda Ross', 'mary@example.com');
    const challenge = (await a.challenges.challengeCreate(userID, { challengeType: 'email_otp', identifierValue: 'mary@example.com', clientInformation })).data;
    expect(challenge).toMatchObject({ challengeID: expect.stringMatching(/^cha-/), type: 'email_otp', identifierValue: 'mary@example.com', status: 'pending', value: expect.stringMatching(/^[0-9]{6}$/) });
    const verified = (await a.challenges.challengeUpdate(userID, challenge.challengeID, { value: challenge.value })).data;
    expect(verified).toMatchObject({ challengeID: challenge.challengeID, status: 'completed' });

    const token = (await a.connectTokens.connectTokenCreate({ type: 'passkey-append', data: { identifier: 'mary@example.com', displayName: 'Mary' } })).data;
    expect(token).toMatchObject({ id: expect.any(String), tokenType: 'passkey-append', connectTokenStatus: 'initial', secret: expect.any(String), expires: expect.any(Number) });
    const tokens = (await a.connectTokens.connectTokenList(undefined, ['identifier:eq:mary@example.com'])).data;
    expect(tokens.connectTokens.map((t) => t.id)).toEqual([token.id]);
    expect(tokens.paging).toMatchObject({ page: 1, totalItems: 1 });
    expect((await a.connectTokens.connectTokenUpdate(token.id, { status: 'consumed' })).data).toMatchObject({ httpStatusCode: 200 });
    expect((await a.connectTokens.connectTokenDelete(token.id)).data).toMatchObject({ httpStatusCode: 200 });

    await register(userID, 'mary@example.com');
    const creds = (await a.users.credentialList(userID, 'created:desc', undefined, 1, 10)).data;
    expect(creds.paging).toEqual({ page: 1, totalPages: 1, totalItems: 1 });
    expect(creds.credentials[0]).toMatchObject({ id: expect.stringMatching(/^cre-/), status: 'active', backupEligible: true, transport: expect.any(Array), created: expect.stringMatching(TIMESTAMP) });
    expect((await a.users.credentialDelete(userID, creds.credentials[0].id)).data).toMatchObject({ httpStatusCode: 200 });
    expect((await a.users.credentialList(userID)).data.paging.totalItems).toBe(0);
  });
});
