/** B4/B5 (passkey login of a known user) through the CeremonyService, on MongoDB. */
import { Code } from '@connectrpc/connect';
import { importJWK, jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { login, registered, startLogin } from './flows.js';
import { SoftAuthenticator, type SoftAlgorithm } from '../../../test/kit/softAuthenticator.js';
import { ORIGIN } from '../../../test/kit/fakeConnect.js';
import { as, clientInformation, failure, startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => {
  await env?.close();
});
beforeEach(async () => {
  await Promise.all(['credentials', 'ceremony_sessions', 'webauthn_users'].map((c) => env.store.db.collection(c).deleteMany({})));
  env.insights.events.length = 0;
  env.insights.loginInputs.length = 0;
  env.connect.calls.length = 0;
});

const credentials = () => env.store.db.collection('credentials');
const sessions = () => env.store.db.collection('ceremony_sessions');

describe('StartLogin (B4)', () => {
  it("offers the user's passkeys with their transports and the project's policy, in a bound session", async () => {
    const a = await registered(env.client, { auth: new SoftAuthenticator({ transports: ['hybrid', 'internal'] }) });
    env.clock.advance(1000);
    const b = await registered(env.client, { auth: new SoftAuthenticator({ transports: ['usb'], attachment: 'cross-platform' }) });
    await registered(env.client, { userId: 'usr-2' });
    const r = await startLogin(env.client);
    expect(r.loginAllow).toBe(true);
    const { publicKey } = JSON.parse(r.assertionOptions);
    expect(publicKey).toMatchObject({ rpId: 'example.com', timeout: 300_000, userVerification: 'required' });
    expect(publicKey.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(publicKey.allowCredentials).toEqual([
      { id: a.credential.id, transports: ['hybrid', 'internal'], type: 'public-key' },
      { id: b.credential.id, transports: ['usb'], type: 'public-key' },
    ]);
    expect(publicKey.hints).toBeUndefined();
    const session = await sessions().findOne({ challenge: publicKey.challenge });
    expect(session).toMatchObject({ projectId: 'pro-1', operation: 'login', userId: 'usr-1', processId: 'proc-2', userVerification: 'required' });
    expect(session!.expiresAt.getTime() - session!.createdAt.getTime()).toBe(300_000);

    expect(r.decisionInsights).toMatchObject({ tag: 'test-login', isCdaCandidate: false, experiments: ['exp-a'], preferImmediatelyAvailable: false });
    expect(r.detectionInsights?.credentialIds).toEqual([a.finished.passkeyData!.id, b.finished.passkeyData!.id]);
    // The reference's flat fields (the published Node SDK's passkeyLoginStartRsp) carry the same facts.
    expect({ decisionTag: r.decisionTag, isCdaCandidate: r.isCdaCandidate, credentialCount: r.credentialCount, detectionTags: r.detectionTags }).toEqual({
      decisionTag: 'test-login',
      isCdaCandidate: false,
      credentialCount: 2,
      detectionTags: r.detectionInsights!.tags,
    });
    expect(r.detectionTags.length).toBeGreaterThan(0);
    expect(env.insights.loginInputs[0]).toMatchObject({ projectId: 'pro-1', userId: 'usr-1', strategy: 'standard' });
    expect(env.insights.loginInputs[0].passkeys.map((p) => p.id)).toEqual([a.finished.passkeyData!.id, b.finished.passkeyData!.id]);
    expect(env.insights.eventTypes().at(-1)).toBe('login-started');
  });

  it('minimize drops hybrid and hints client-device; maximize adds hybrid and hints hybrid', async () => {
    const a = await registered(env.client, { auth: new SoftAuthenticator({ transports: ['hybrid', 'internal'] }) });
    env.clock.advance(1000);
    const b = await registered(env.client, { auth: new SoftAuthenticator({ transports: ['usb'], attachment: 'cross-platform' }) });
    env.clock.advance(1000);
    const c = await registered(env.client, { auth: new SoftAuthenticator({ transports: [] }) });

    const min = JSON.parse((await startLogin(env.client, { strategy: 'minimize' })).assertionOptions).publicKey;
    expect(min.hints).toEqual(['client-device']);
    expect(min.allowCredentials).toEqual([
      { id: a.credential.id, transports: ['internal'], type: 'public-key' },
      { id: b.credential.id, transports: ['usb'], type: 'public-key' },
      { id: c.credential.id, type: 'public-key' },
    ]);

    const max = await startLogin(env.client, { strategy: 'maximize' });
    const maxKey = JSON.parse(max.assertionOptions).publicKey;
    expect(maxKey.hints).toEqual(['hybrid']);
    expect(maxKey.allowCredentials).toEqual([
      { id: a.credential.id, transports: ['hybrid', 'internal'], type: 'public-key' },
      { id: b.credential.id, transports: ['usb', 'hybrid'], type: 'public-key' },
      { id: c.credential.id, type: 'public-key' },
    ]);
    expect(max.decisionInsights?.isCdaCandidate).toBe(true);
  });

  it("asks the insights while the user's passkeys are still being read (one store round trip for both)", async () => {
    await registered(env.client);
    const { credentials: store } = env.deps;
    const insights = env.insights;
    const listForUser = store.listForUser;
    const forLogin = insights.forLogin;
    let passkeysRead = false;
    const passkeysReadWhenAsked: boolean[] = [];
    store.listForUser = (...args) => listForUser.apply(store, args).finally(() => (passkeysRead = true));
    insights.forLogin = (input) => {
      passkeysReadWhenAsked.push(passkeysRead);
      return forLogin.call(insights, input);
    };
    try {
      expect((await startLogin(env.client)).loginAllow).toBe(true);
    } finally {
      store.listForUser = listForUser;
      insights.forLogin = forLogin;
    }
    expect(passkeysReadWhenAsked).toEqual([false]);
    expect(env.insights.loginInputs[0].passkeys).toHaveLength(1);
  });

  it('an unknown user is NotFound user_not_found; a bad strategy is InvalidArgument', async () => {
    const f = await failure(startLogin(env.client, { userId: 'usr-404' }));
    expect(f.code).toBe(Code.NotFound);
    expect(f.type).toBe('user_not_found');
    const bad = await failure(
      env.client.startLogin({ userId: 'usr-1', processId: 'p', crossDeviceAuthenticationStrategy: 'always', clientInformation: clientInformation() }, as('pro-1')),
    );
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(bad.fields).toEqual(['crossDeviceAuthenticationStrategy']);
  });
});

describe('process IDs', () => {
  it("accept the service's own process tokens (up to 2048 characters) and refuse longer ones", async () => {
    const reg = await registered(env.client);
    const token = `eyJ${'a'.repeat(700)}.${'b'.repeat(300)}.${'c'.repeat(86)}`;
    const r = await (await login(env.client, reg.auth, reg.credential, { processId: token })).finish;
    expect(r.passkeyData?.id).toBe(reg.finished.passkeyData!.id);
    expect((await startLogin(env.client, { processId: 'p'.repeat(2048) })).assertionOptions).toContain('publicKey');
    const f = await failure(startLogin(env.client, { processId: 'p'.repeat(2049) }));
    expect(f.code).toBe(Code.InvalidArgument);
    expect(f.fields).toEqual(['processID']);
  });
});

describe('FinishLogin (B5)', () => {
  it.each(['ES256', 'RS256', 'EdDSA'] as SoftAlgorithm[])('logs in with a %s passkey and saves counter, backup state and last use', async (algorithm) => {
    const auth = new SoftAuthenticator({ flags: { be: true, bs: false } });
    const reg = await registered(env.client, { auth, create: { algorithm } });
    env.clock.advance(60_000);
    const { finish, start } = await login(env.client, auth, reg.credential, { get: { flags: { be: true, bs: true } } });
    const r = await finish;
    const data = r.passkeyData!;
    const session = JSON.parse(start.assertionOptions).publicKey;
    expect(data).toMatchObject({ id: reg.finished.passkeyData!.id, userId: 'usr-1', username: 'ada@example.com', ceremonyType: 'local' });
    expect(data.challengeId).toMatch(/^pch-/);
    expect(data.challengeId).not.toBe(reg.finished.passkeyData!.challengeId);
    expect(data.aaguidDetails?.name).toBe('Passkey');
    expect(r.signedPasskeyData).toBeUndefined();
    const doc = await credentials().findOne({ _id: data.id as never });
    expect(doc).toMatchObject({ counter: 1, backupState: true });
    expect(doc!.lastUsedAt).toEqual(env.clock.now());
    expect(doc!.createdAt.getTime()).toBe(env.clock.ms - 60_000);
    expect(await sessions().countDocuments({ challenge: session.challenge, status: 'pending' })).toBe(0);
    expect(env.insights.eventTypes().slice(-2)).toEqual(['login-started', 'login-succeeded']);
  });

  it('signs passkeyData when asked, as a JWT verifiable with the project key', async () => {
    const reg = await registered(env.client);
    const { finish } = await login(env.client, reg.auth, reg.credential, { signPasskeyData: true });
    const r = await finish;
    const { payload, protectedHeader } = await jwtVerify(r.signedPasskeyData!, await importJWK(env.connect.publicJwk, 'ES256'), {
      issuer: 'https://pro-1.auth.example.com',
      audience: 'pro-1',
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({ sub: 'usr-1', id: r.passkeyData!.id, userID: 'usr-1', username: 'ada@example.com', challengeID: r.passkeyData!.challengeId, ceremonyType: 'local' });
    expect(payload.exp! - payload.iat!).toBe(300);
    expect(env.connect.calls).toContain('SignPasskeyData header=pro-1 expiresIn=300');
  });

  it('a cross-platform assertion of a hybrid passkey is "cda", of a USB key "security-key"', async () => {
    const phone = await registered(env.client, { auth: new SoftAuthenticator({ attachment: 'platform', transports: ['hybrid', 'internal'] }) });
    const viaHybrid = new SoftAuthenticator({ attachment: 'cross-platform' });
    const cda = await (await login(env.client, viaHybrid, phone.credential)).finish;
    expect(cda.passkeyData!.ceremonyType).toBe('cda');
    const key = await registered(env.client, { auth: new SoftAuthenticator({ attachment: 'cross-platform', transports: ['usb'] }) });
    expect((await (await login(env.client, key.auth, key.credential)).finish).passkeyData!.ceremonyType).toBe('security-key');
  });

  it('authenticators without a counter (always 0) log in again and again', async () => {
    const auth = new SoftAuthenticator({ counterStep: 0 });
    const reg = await registered(env.client, { auth });
    for (let i = 0; i < 3; i++) await (await login(env.client, auth, reg.credential)).finish;
    expect(await credentials().findOne({})).toMatchObject({ counter: 0 });
  });

  it('a counter that does not increase is a possible clone: counter_regression, recorded, the passkey flagged; under "record" a later higher counter logs in', async () => {
    const inPro2 = { projectId: 'pro-2', origin: 'https://other.test' };
    const reg = await registered(env.client, inPro2);
    await (await login(env.client, reg.auth, reg.credential, { ...inPro2, get: { counter: 5 } })).finish;
    const before = await credentials().findOne({});
    env.clock.advance(1000);
    for (const counter of [5, 3]) {
      const f = await failure((await login(env.client, reg.auth, reg.credential, { ...inPro2, get: { counter } })).finish);
      expect(f.code).toBe(Code.FailedPrecondition);
      expect(f.type).toBe('counter_regression');
      expect(env.insights.events.at(-1)).toMatchObject({ type: 'clone-detected', userId: 'usr-1', credentialId: reg.finished.passkeyData!.id, reason: 'counter_regression' });
    }
    // Nothing of the refused logins is saved but the flag, set at the first detection.
    expect(await credentials().findOne({})).toEqual({ ...before, cloneDetectedAt: env.clock.now() });
    // A counter from 0 to 0 after a non-zero one is a regression too.
    expect((await failure((await login(env.client, reg.auth, reg.credential, { ...inPro2, get: { counter: 0 } })).finish)).type).toBe('counter_regression');
    await (await login(env.client, reg.auth, reg.credential, { ...inPro2, get: { counter: 6 } })).finish;
    expect(await credentials().findOne({})).toMatchObject({ counter: 6, cloneDetectedAt: env.clock.now() });
  });

  it('under "block" (the default) a passkey flagged as cloned never logs in again, even with a higher counter', async () => {
    const reg = await registered(env.client);
    await (await login(env.client, reg.auth, reg.credential, { get: { counter: 5 } })).finish;
    expect((await failure((await login(env.client, reg.auth, reg.credential, { get: { counter: 4 } })).finish)).type).toBe('counter_regression');
    const flaggedAt = (await credentials().findOne({}))!.cloneDetectedAt as Date;
    expect(flaggedAt).toEqual(env.clock.now());
    for (const counter of [6, 100]) {
      const f = await failure((await login(env.client, reg.auth, reg.credential, { get: { counter } })).finish);
      expect({ code: f.code, type: f.type }).toEqual({ code: Code.FailedPrecondition, type: 'passkey_clone_detected' });
      expect(f.error.rawMessage).toContain(flaggedAt.toISOString());
    }
    expect(await credentials().findOne({})).toMatchObject({ counter: 5 });
  });

  it('a counter regression is decided at write time too: of two racing logins with the same counter one wins', async () => {
    const reg = await registered(env.client);
    const a = await login(env.client, reg.auth, reg.credential, { get: { counter: 7 }, processId: 'p-a' });
    const b = await login(env.client, reg.auth, reg.credential, { get: { counter: 7 }, processId: 'p-b' });
    const results = await Promise.allSettled([a.finish, b.finish]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
    expect((await failure(Promise.reject(rejected.reason))).type).toBe('counter_regression');
    expect(await credentials().findOne({})).toMatchObject({ counter: 7 });
  });

  describe('refuses assertions that do not answer the ceremony', () => {
    const refusals: Array<[string, Parameters<typeof login>[3], Code, string]> = [
      ['an origin outside the project', { origin: 'https://evil.example' }, Code.InvalidArgument, 'origin_mismatch'],
      ['another RP ID', { get: { rpId: 'evil.example' } }, Code.InvalidArgument, 'rp_id_mismatch'],
      ['no user verification under policy "required"', { get: { flags: { uv: false } } }, Code.InvalidArgument, 'user_verification_missing'],
      ['no user presence', { get: { flags: { up: false } } }, Code.InvalidArgument, 'user_presence_missing'],
      ['a registration type', { get: { clientDataType: 'webauthn.create' } }, Code.InvalidArgument, 'client_data_type_mismatch'],
      ['a tampered signature', { get: { tamperSignature: true } }, Code.InvalidArgument, 'signature_invalid'],
      ['another user handle', { get: { userHandle: Buffer.from('someone else').toString('base64url') } }, Code.InvalidArgument, 'user_handle_mismatch'],
      ['another process', { finishProcessId: 'proc-other' }, Code.FailedPrecondition, 'challenge_not_found_or_used'],
      ["another user's login", { finishUserId: 'usr-2' }, Code.NotFound, 'credential_not_found'],
      ['another project', { finishProjectId: 'pro-2' }, Code.NotFound, 'credential_not_found'],
    ];
    it.each(refusals)('%s', async (_name, options, code, type) => {
      const reg = await registered(env.client);
      const f = await failure((await login(env.client, reg.auth, reg.credential, options)).finish);
      expect(f.code).toBe(code);
      expect(f.type).toBe(type);
      expect(await credentials().findOne({})).toMatchObject({ counter: 0 });
      expect(env.insights.events.at(-1)).toMatchObject({ type: 'login-failed', reason: type });
    });
  });

  it('without user handle in the response the login still works (the credential names the user)', async () => {
    const reg = await registered(env.client);
    await expect((await login(env.client, reg.auth, reg.credential, { get: { userHandle: null } })).finish).resolves.toBeDefined();
  });

  it('a passkey of another user does not log in, even with a ceremony of that other user', async () => {
    const mine = await registered(env.client, { userId: 'usr-1' });
    await registered(env.client, { userId: 'usr-2' });
    const f = await failure((await login(env.client, mine.auth, mine.credential, { userId: 'usr-2' })).finish);
    expect(f.code).toBe(Code.NotFound);
    expect(f.type).toBe('credential_not_found');
  });

  it('a credential of project A never authenticates in project B, even with the same credential ID there', async () => {
    const a = await registered(env.client);
    // The user of pro-2 registers an unrelated key under the same credential ID.
    await registered(env.client, { projectId: 'pro-2', origin: 'https://other.test', create: { credentialId: a.credential.id } });
    const inB = { projectId: 'pro-2', origin: 'https://other.test' } as const;
    // Project B's credential belongs to a user with another handle…
    const handle = await failure((await login(env.client, a.auth, a.credential, { ...inB, get: { rpId: 'other.test' } })).finish);
    expect(handle.code).toBe(Code.InvalidArgument);
    expect(handle.type).toBe('user_handle_mismatch');
    // …and without a handle, project A's key does not verify against project B's credential.
    const signature = await failure((await login(env.client, a.auth, a.credential, { ...inB, get: { rpId: 'other.test', userHandle: null } })).finish);
    expect(signature.code).toBe(Code.InvalidArgument);
    expect(signature.type).toBe('signature_invalid');
  });

  it('an unknown credential is NotFound credential_not_found and consumes nothing', async () => {
    await registered(env.client);
    const stranger = new SoftAuthenticator();
    const { credential } = stranger.create({ challenge: 'x', rpId: 'example.com', origin: ORIGIN, userHandle: 'eA' });
    const before = await sessions().countDocuments({});
    const { finish } = await login(env.client, stranger, credential);
    const f = await failure(finish);
    expect(f.code).toBe(Code.NotFound);
    expect(f.type).toBe('credential_not_found');
    expect(await sessions().countDocuments({})).toBe(before + 1);
  });

  it('a replayed assertion is refused; an expired one is challenge_expired', async () => {
    const reg = await registered(env.client);
    const { finish, request } = await login(env.client, reg.auth, reg.credential);
    await finish;
    const replay = await failure(env.client.finishLogin(request, as('pro-1')));
    expect(replay.code).toBe(Code.FailedPrecondition);
    expect(replay.type).toBe('challenge_not_found_or_used');

    const start = await startLogin(env.client);
    const json = reg.auth.getFromOptions(start.assertionOptions, reg.credential, ORIGIN);
    env.clock.advance(300_001);
    const expired = await failure(env.client.finishLogin({ ...request, assertionResponse: JSON.stringify(json) }, as('pro-1')));
    expect(expired.code).toBe(Code.FailedPrecondition);
    expect(expired.type).toBe('challenge_expired');
  });

  it('of two concurrent identical finishes exactly one succeeds', async () => {
    const auth = new SoftAuthenticator({ counterStep: 0 });
    const reg = await registered(env.client, { auth });
    const { finish, request } = await login(env.client, auth, reg.credential);
    const results = await Promise.allSettled([finish, env.client.finishLogin(request, as('pro-1')), env.client.finishLogin(request, as('pro-1'))]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
      expect((await failure(Promise.reject(r.reason))).type).toBe('challenge_not_found_or_used');
    }
  });

  describe('the session carries what the start saw of the passkeys', () => {
    /** Counts what a finish reads beside the session: the passkey and the user handle. */
    function countReads() {
      const counts = { credential: 0, handle: 0 };
      const { findByCredentialId } = env.deps.credentials;
      const { find } = env.deps.webauthnUsers;
      env.deps.credentials.findByCredentialId = (...a) => ((counts.credential += 1), findByCredentialId(...a));
      env.deps.webauthnUsers.find = (...a) => ((counts.handle += 1), find(...a));
      return { counts, restore: () => Object.assign(env.deps.credentials, { findByCredentialId }) && Object.assign(env.deps.webauthnUsers, { find }) };
    }

    /** B4 and the authenticator's answer, without sending B5 yet. */
    async function started(reg: Awaited<ReturnType<typeof registered>>) {
      const start = await startLogin(env.client);
      const json = reg.auth.getFromOptions(start.assertionOptions, reg.credential, ORIGIN);
      const finish = () =>
        env.client.finishLogin({ userId: 'usr-1', processId: 'proc-2', assertionResponse: JSON.stringify(json), trackingId: 't', clientInformation: clientInformation() }, as('pro-1'));
      return { challenge: JSON.parse(start.assertionOptions).publicKey.challenge as string, json, finish };
    }

    it('a finish reads neither the passkey nor the user handle again', async () => {
      const reg = await registered(env.client);
      const l = await started(reg);
      const session = await sessions().findOne({ challenge: l.challenge });
      expect(session!.allowed).toHaveLength(1);
      expect(session!.allowed[0]).toMatchObject({ id: reg.finished.passkeyData!.id, credentialId: reg.credential.id, counter: 0 });
      expect((await credentials().findOne({ credentialId: reg.credential.id }))!.userHandle).toBe((l.json.response as { userHandle?: string }).userHandle);
      await l.finish();
      // A second login is measured.
      const spy = countReads();
      try {
        const r = await (await login(env.client, reg.auth, reg.credential)).finish;
        expect(r.passkeyData?.id).toBe(reg.finished.passkeyData!.id);
      } finally {
        spy.restore();
      }
      expect(spy.counts).toEqual({ credential: 0, handle: 0 });
    });

    it('a passkey added after the start still logs in (read then, as before)', async () => {
      const first = await registered(env.client);
      const started = await startLogin(env.client);
      const second = await registered(env.client);
      const json = second.auth.getFromOptions(started.assertionOptions, second.credential, ORIGIN);
      const r = await env.client.finishLogin({ userId: 'usr-1', processId: 'proc-2', assertionResponse: JSON.stringify(json), trackingId: 't', clientInformation: clientInformation() }, as('pro-1'));
      expect(r.passkeyData?.id).toBe(second.finished.passkeyData!.id);
      expect(first.finished.passkeyData!.id).not.toBe(second.finished.passkeyData!.id);
    });

    it('a session started before sessions carried passkeys, and a passkey stored before it kept its handle, still finish', async () => {
      const reg = await registered(env.client);
      await credentials().updateOne({ credentialId: reg.credential.id }, { $unset: { userHandle: '' } });
      const l = await started(reg);
      await sessions().updateOne({ challenge: l.challenge }, { $unset: { allowed: '' } });
      expect((l.json.response as { userHandle?: string }).userHandle).toBeTruthy();
      const spy = countReads();
      try {
        expect((await l.finish()).passkeyData?.id).toBe(reg.finished.passkeyData!.id);
      } finally {
        spy.restore();
      }
      expect(spy.counts).toEqual({ credential: 1, handle: 1 });
    });

    it('a passkey deleted between start and finish is NotFound credential_not_found', async () => {
      const reg = await registered(env.client);
      const l = await started(reg);
      await credentials().deleteOne({ credentialId: reg.credential.id });
      const f = await failure(l.finish());
      expect(f.code).toBe(Code.NotFound);
      expect(f.type).toBe('credential_not_found');
    });
  });

  describe('malformed assertion responses are InvalidArgument on assertionResponse', () => {
    const bad: Array<[string, (json: Record<string, unknown>) => unknown]> = [
      ['not JSON', () => 'nope'],
      ['null', () => 'null'],
      ['id missing', (j) => ({ ...j, id: undefined })],
      ['rawId of the wrong type', (j) => ({ ...j, rawId: ['x'] })],
      ['signature that is not base64url', (j) => ({ ...j, response: { ...(j.response as object), signature: 'a b' } })],
      ['signature empty', (j) => ({ ...j, response: { ...(j.response as object), signature: '' } })],
      ['authenticatorData too short', (j) => ({ ...j, response: { ...(j.response as object), authenticatorData: 'AAAA' } })],
      ['authenticatorData with trailing bytes', (j) => ({ ...j, response: { ...(j.response as object), authenticatorData: Buffer.concat([Buffer.from((j.response as { authenticatorData: string }).authenticatorData, 'base64url'), Buffer.from([1, 2])]).toString('base64url') } })],
      ['authenticatorData with bad CBOR extensions', (j) => {
        const ad = Buffer.from((j.response as { authenticatorData: string }).authenticatorData, 'base64url');
        ad[32] |= 0x80;
        return { ...j, response: { ...(j.response as object), authenticatorData: Buffer.concat([ad, Buffer.from([0xff])]).toString('base64url') } };
      }],
      ['userHandle of the wrong type', (j) => ({ ...j, response: { ...(j.response as object), userHandle: 5 } })],
      ['clientDataJSON not UTF-8', (j) => ({ ...j, response: { ...(j.response as object), clientDataJSON: Buffer.from([0xc3, 0x28]).toString('base64url') } })],
      ['clientDataJSON a JSON array', (j) => ({ ...j, response: { ...(j.response as object), clientDataJSON: Buffer.from('[1]').toString('base64url') } })],
    ];
    it.each(bad)('%s', async (_name, mutate) => {
      const reg = await registered(env.client);
      const f = await failure((await login(env.client, reg.auth, reg.credential, { mutate })).finish);
      expect(f.code).toBe(Code.InvalidArgument);
      expect(f.type).toBe('validation_error');
      expect(f.fields).toEqual(['assertionResponse']);
    });
  });
});
