/** B2/B3 (passkey append) through the CeremonyService with the runtime interceptors, on MongoDB. */
import { Code } from '@connectrpc/connect';
import { encodeCBOR } from '@levischuck/tiny-cbor';
import { Binary } from 'mongodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GENERIC_ICON_DARK, GENERIC_ICON_LIGHT } from '../src/domain/aaguidDetails.js';
import { SUPPORTED_ALGORITHMS } from '../src/domain/ceremonyRules.js';
import { appendPasskey, finishAppendRequest, registered, startAppend } from './flows.js';
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
  env.insights.appendInputs.length = 0;
  env.connect.calls.length = 0;
});

const credentials = () => env.store.db.collection('credentials');
const sessions = () => env.store.db.collection('ceremony_sessions');

describe('StartAppend (B2)', () => {
  it('returns creation options for the project and user, and stores a bound, expiring session', async () => {
    const r = await startAppend(env.client);
    expect(r.appendAllow).toBe(true);
    const { publicKey } = JSON.parse(r.attestationOptions);
    expect(Object.keys(JSON.parse(r.attestationOptions))).toEqual(['publicKey']);
    expect(publicKey.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(publicKey.rp).toEqual({ name: 'Example', id: 'example.com' });
    expect(publicKey.user.name).toBe('ada@example.com');
    expect(publicKey.user.displayName).toBe('Ada Lovelace');
    // An opaque 32-byte handle, never the user ID.
    expect(Buffer.from(publicKey.user.id, 'base64url')).toHaveLength(32);
    expect(Buffer.from(publicKey.user.id, 'base64url').toString()).not.toContain('usr-1');
    expect(publicKey.pubKeyCredParams.map((p: { alg: number }) => p.alg)).toEqual(SUPPORTED_ALGORITHMS);
    for (const alg of [-7, -8, -257]) expect(publicKey.pubKeyCredParams).toContainEqual({ alg, type: 'public-key' });
    expect(publicKey.authenticatorSelection).toEqual({ residentKey: 'required', requireResidentKey: true, userVerification: 'required' });
    expect(publicKey.timeout).toBe(300_000);
    expect(publicKey.attestation).toBe('none');
    expect(publicKey.excludeCredentials).toEqual([]);

    const docs = await sessions().find({}).toArray();
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ projectId: 'pro-1', operation: 'append', userId: 'usr-1', username: 'ada@example.com', processId: 'proc-1', challenge: publicKey.challenge, rpId: 'example.com', userVerification: 'required', situation: 'default' });
    expect(docs[0]._id).toMatch(/^pch-[0-9]{20}$/);
    expect(docs[0].expiresAt.getTime() - docs[0].createdAt.getTime()).toBe(300_000);

    expect(env.insights.eventTypes()).toEqual(['append-started']);
    expect(env.insights.events[0]).toMatchObject({ projectId: 'pro-1', userId: 'usr-1', situation: 'default', processId: 'proc-1' });
    expect(env.connect.calls).toEqual(expect.arrayContaining(['GetUser usr-1 header=pro-1']));
  });

  it('maps the insights into the response', async () => {
    const r = await startAppend(env.client);
    expect(r.detectionInsights?.tags).toEqual([expect.objectContaining({ category: 'support', name: 'platform-authenticator' })]);
    expect(r.detectionInsights?.historyData?.defaultCount).toBe(1);
    expect(r.decisionInsights).toMatchObject({ tag: 'test-allow', variant: 'default', customData: { source: 'test' } });
    expect(env.insights.appendInputs[0]).toMatchObject({ projectId: 'pro-1', userId: 'usr-1', situation: 'default', passkeys: [] });
    expect(env.insights.appendInputs[0].client).toMatchObject({ userAgent: expect.stringContaining('Chrome'), uvpaAvailable: true, clientEnvHandle: 'handle-1' });
  });

  it('answers the reference\'s flat fields beside the insights, and takes a start without situation and a finish without trackingID (the Node SDK 3.x sends neither)', async () => {
    await registered(env.client);
    const r = await env.client.startAppend({ userId: 'usr-1', processId: 'proc-sdk', username: 'ada@example.com', clientInformation: clientInformation(), passkeyIntelFlags: {} }, as('pro-1'));
    expect(env.insights.appendInputs.at(-1)).toMatchObject({ situation: 'default' });
    expect((await sessions().findOne({ processId: 'proc-sdk' }))!.situation).toBe('default');
    expect({ decisionTag: r.decisionTag, credentialCount: r.credentialCount, detectionTags: r.detectionTags }).toEqual({ decisionTag: 'test-allow', credentialCount: 1, detectionTags: r.detectionInsights!.tags });
    expect(r.detectionTags.length).toBeGreaterThan(0);
    const { json } = new SoftAuthenticator().createFromOptions(r.attestationOptions, ORIGIN);
    const { trackingId: _omitted, ...request } = finishAppendRequest({ processId: 'proc-sdk' }, JSON.stringify(json));
    const done = await env.client.finishAppend(request, as('pro-1'));
    expect(done.passkeyData?.userId).toBe('usr-1');
    expect((await credentials().countDocuments({ userId: 'usr-1' }))).toBe(2);
  });

  it('still returns options when the insights advise against the append', async () => {
    const r = await env.client.startAppend(
      { userId: 'usr-1', processId: 'p', username: 'ada', clientInformation: clientInformation({ userVerifyingPlatformAuthenticatorAvailable: false }), passkeyIntelFlags: {}, situation: 'default' },
      as('pro-1'),
    );
    expect(r.appendAllow).toBe(false);
    expect(r.decisionInsights?.tag).toBe('env-no-platform-pk-support');
    expect(JSON.parse(r.attestationOptions).publicKey.challenge).toBeTruthy();
  });

  it('keeps one WebAuthn user handle per user, and uses an explicit one where the user has it', async () => {
    const a = JSON.parse((await startAppend(env.client)).attestationOptions).publicKey.user.id;
    const b = JSON.parse((await startAppend(env.client)).attestationOptions).publicKey.user.id;
    const other = JSON.parse((await startAppend(env.client, { userId: 'usr-2' })).attestationOptions).publicKey.user.id;
    expect(a).toBe(b);
    expect(other).not.toBe(a);
    const explicit = JSON.parse((await startAppend(env.client, { userId: 'usr-7' })).attestationOptions).publicKey.user.id;
    expect(Buffer.from(explicit, 'base64url').toString()).toBe('legacy-handle-7');
  });

  it('excludes the passkeys the user already has, with their transports', async () => {
    const first = await registered(env.client, { auth: new SoftAuthenticator({ transports: ['internal', 'hybrid'] }) });
    env.clock.advance(1000);
    const second = await registered(env.client, { auth: new SoftAuthenticator({ transports: ['usb', 'nfc'], attachment: 'cross-platform' }) });
    const { publicKey } = JSON.parse((await startAppend(env.client)).attestationOptions);
    expect(publicKey.excludeCredentials).toEqual([
      { id: first.credential.id, transports: ['hybrid', 'internal'], type: 'public-key' },
      { id: second.credential.id, transports: ['nfc', 'usb'], type: 'public-key' },
    ]);
    // Another user's passkeys are not listed.
    expect(JSON.parse((await startAppend(env.client, { userId: 'usr-2' })).attestationOptions).publicKey.excludeCredentials).toEqual([]);
  });

  it("reads the user's passkeys while the handle is ensured (one store round trip for both)", async () => {
    await registered(env.client);
    const { credentials: store, webauthnUsers } = env.deps;
    const ensure = webauthnUsers.ensure;
    const listForUser = store.listForUser;
    let handleEnsured = false;
    const handleEnsuredWhenListed: boolean[] = [];
    webauthnUsers.ensure = (...args) => ensure.apply(webauthnUsers, args).finally(() => (handleEnsured = true));
    store.listForUser = (...args) => {
      handleEnsuredWhenListed.push(handleEnsured);
      return listForUser.apply(store, args);
    };
    try {
      const { publicKey } = JSON.parse((await startAppend(env.client)).attestationOptions);
      expect(publicKey.excludeCredentials).toHaveLength(1);
    } finally {
      webauthnUsers.ensure = ensure;
      store.listForUser = listForUser;
    }
    expect(handleEnsuredWhenListed).toEqual([false]);
  });

  it('an unknown user, or a user of another project, is NotFound user_not_found', async () => {
    for (const [userId, projectId] of [['usr-404', 'pro-1'], ['usr-2', 'pro-2']]) {
      const f = await failure(startAppend(env.client, { userId, projectId }));
      expect(f.code).toBe(Code.NotFound);
      expect(f.type).toBe('user_not_found');
    }
    expect(await sessions().countDocuments({ status: 'pending' })).toBe(0);
  });

  it('needs an authenticated project and valid fields', async () => {
    const noProject = await failure(env.client.startAppend({ userId: 'usr-1', processId: 'p', username: 'a', clientInformation: clientInformation(), passkeyIntelFlags: {}, situation: 'default' }));
    expect(noProject.code).toBe(Code.Unauthenticated);
    const invalid = await failure(env.client.startAppend({ userId: 'user-1', processId: '', username: 'a', situation: 'default' }, as('pro-1')));
    expect(invalid.code).toBe(Code.InvalidArgument);
    expect(invalid.fields.sort()).toEqual(['clientInformation', 'passkeyIntelFlags', 'processID', 'userID']);
  });
});

describe('FinishAppend (B3)', () => {
  const cases: Array<[SoftAlgorithm, 'none' | 'packed']> = [
    ['ES256', 'none'],
    ['ES256', 'packed'],
    ['RS256', 'none'],
    ['RS256', 'packed'],
    ['EdDSA', 'none'],
    ['EdDSA', 'packed'],
  ];
  it.each(cases)('stores a %s passkey (attestation %s) and returns passkeyData', async (algorithm, fmt) => {
    const auth = new SoftAuthenticator({ aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd', flags: { be: true, bs: true } });
    const { start, credential, finished } = await registered(env.client, { auth, create: { algorithm, fmt } });
    const session = JSON.parse(start.attestationOptions).publicKey;
    const data = finished.passkeyData!;
    expect(data.id).toMatch(/^cre-[0-9]{20}$/);
    expect(data.userId).toBe('usr-1');
    expect(data.username).toBe('ada@example.com');
    expect(data.challengeId).toMatch(/^pch-[0-9]{20}$/);
    expect(data.ceremonyType).toBe('local');
    expect(data.aaguidDetails).toMatchObject({ aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd', name: 'Apple Passwords', iconLight: GENERIC_ICON_LIGHT, iconDark: GENERIC_ICON_DARK });

    const doc = await credentials().findOne({ _id: data.id as never });
    expect(doc).toMatchObject({
      projectId: 'pro-1',
      userId: 'usr-1',
      username: 'ada@example.com',
      credentialId: credential.id,
      algorithm: { ES256: -7, RS256: -257, EdDSA: -8 }[algorithm],
      counter: 0,
      transports: ['hybrid', 'internal'],
      aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
      backupEligible: true,
      backupState: true,
      attestationFormat: fmt,
      clientEnvKey: 'handle-1',
      sourceOS: 'macOS',
      sourceBrowser: 'Chrome',
      status: 'active',
      notificationRequested: false,
    });
    expect(doc!.publicKey).toBeInstanceOf(Binary);
    expect(Buffer.from((doc!.publicKey as Binary).buffer).equals(Buffer.from(credential.cosePublicKey))).toBe(true);
    expect(doc!.createdAt).toEqual(env.clock.now());
    expect(doc!.lastUsedAt).toEqual(doc!.createdAt);
    // The session is gone, and it was the one answered.
    expect(await sessions().countDocuments({ challenge: session.challenge, status: 'pending' })).toBe(0);
    expect(env.insights.eventTypes()).toEqual(['append-started', 'append-succeeded']);
    expect(env.insights.events[1]).toMatchObject({ credentialId: data.id, processId: 'proc-1', situation: 'default' });
  });

  it('names the ceremony: cda over hybrid, security-key for a roaming key, local otherwise', async () => {
    const cda = await registered(env.client, { auth: new SoftAuthenticator({ attachment: 'cross-platform', transports: ['hybrid', 'internal'] }) });
    expect(cda.finished.passkeyData!.ceremonyType).toBe('cda');
    const key = await registered(env.client, { auth: new SoftAuthenticator({ attachment: 'cross-platform', transports: ['usb'] }) });
    expect(key.finished.passkeyData!.ceremonyType).toBe('security-key');
    const unknown = await registered(env.client, { auth: new SoftAuthenticator({ attachment: null, transports: [] }) });
    expect(unknown.finished.passkeyData!.ceremonyType).toBe('local');
  });

  it('gives a zero AAGUID the generic name "Passkey" and an unlisted one "Unknown authenticator"', async () => {
    const zero = await registered(env.client);
    expect(zero.finished.passkeyData!.aaguidDetails!.name).toBe('Passkey');
    const unlisted = await registered(env.client, { auth: new SoftAuthenticator({ aaguid: '12345678-1234-1234-1234-123456789abc' }) });
    expect(unlisted.finished.passkeyData!.aaguidDetails!.name).toBe('Unknown authenticator');
  });

  it('records a requested notification with the event and the passkey', async () => {
    const { finished } = await registered(env.client, { sendNotification: true });
    expect(env.insights.events.at(-1)).toMatchObject({ type: 'append-succeeded', notificationRequested: true });
    expect(await credentials().findOne({ _id: finished.passkeyData!.id as never })).toMatchObject({ notificationRequested: true });
  });

  it('asks the challenge service to email a passkey-added notice to an email user name', async () => {
    env.notifier.notices = [];
    const { finished } = await registered(env.client, { sendNotification: true, username: 'ada@example.com' });
    expect(env.notifier.notices).toEqual([
      expect.objectContaining({ projectId: 'pro-1', userId: finished.passkeyData!.userId, email: 'ada@example.com', passkeyName: 'Passkey' }),
    ]);
  });

  it('keeps the passkey when the notice cannot be sent, and sends none for a user name that is no email address', async () => {
    env.notifier.notices = [];
    env.notifier.failWith = new Error('challenge service down');
    try {
      const { finished } = await registered(env.client, { sendNotification: true, username: 'ada@example.com' });
      expect(finished.passkeyData!.id).toMatch(/^cre-/);
    } finally {
      env.notifier.failWith = null;
    }
    await registered(env.client, { sendNotification: true, username: 'ada-lovelace' });
    await registered(env.client, { sendNotification: false, username: 'ada@example.com' });
    expect(env.notifier.notices).toEqual([]);
  });

  it('accepts a response without user verification when the project only prefers it', async () => {
    const { finished } = await registered(env.client, { projectId: 'pro-2', origin: 'https://other.test', create: { flags: { uv: false } } });
    expect(finished.passkeyData!.userId).toBe('usr-1');
  });

  describe('refuses responses that do not answer the ceremony', () => {
    const refusals: Array<[string, Parameters<typeof appendPasskey>[1], Code, string]> = [
      ['an origin outside the project', { origin: 'https://evil.example' }, Code.InvalidArgument, 'origin_mismatch'],
      ['another RP ID', { create: { rpId: 'evil.example' } }, Code.InvalidArgument, 'rp_id_mismatch'],
      ['no user verification under policy "required"', { create: { flags: { uv: false } } }, Code.InvalidArgument, 'user_verification_missing'],
      ['no user presence', { create: { flags: { up: false } } }, Code.InvalidArgument, 'user_presence_missing'],
      ['an assertion type', { create: { clientDataType: 'webauthn.get' } }, Code.InvalidArgument, 'client_data_type_mismatch'],
      ['another user', { finishUserId: 'usr-2' }, Code.FailedPrecondition, 'challenge_not_found_or_used'],
      ['another process', { finishProcessId: 'proc-other' }, Code.FailedPrecondition, 'challenge_not_found_or_used'],
      ['another project', { finishProjectId: 'pro-2' }, Code.FailedPrecondition, 'challenge_not_found_or_used'],
      ['a challenge never issued', { create: { challenge: Buffer.alloc(32, 1).toString('base64url') } }, Code.FailedPrecondition, 'challenge_not_found_or_used'],
    ];
    it.each(refusals)('%s', async (_name, options, code, type) => {
      const { finish } = await appendPasskey(env.client, options);
      const f = await failure(finish);
      expect(f.code).toBe(code);
      expect(f.type).toBe(type);
      expect(await credentials().countDocuments({})).toBe(0);
    });
  });

  it('a failed verification consumes the ceremony and records append-failed', async () => {
    const { finish, start } = await appendPasskey(env.client, { origin: 'https://evil.example' });
    expect((await failure(finish)).type).toBe('origin_mismatch');
    expect(env.insights.events.at(-1)).toMatchObject({ type: 'append-failed', reason: 'origin_mismatch', userId: 'usr-1' });
    // The ceremony is used up: the right answer to it is refused now.
    const auth = new SoftAuthenticator();
    const { json } = auth.createFromOptions(start.attestationOptions, ORIGIN);
    const retry = await failure(env.client.finishAppend(finishAppendRequest({}, JSON.stringify(json)), as('pro-1')));
    expect(retry.type).toBe('challenge_not_found_or_used');
  });

  it('a binding mismatch leaves the ceremony to its rightful owner', async () => {
    const { finish, json } = await appendPasskey(env.client, { finishUserId: 'usr-2' });
    expect((await failure(finish)).type).toBe('challenge_not_found_or_used');
    const ok = await env.client.finishAppend(finishAppendRequest({}, JSON.stringify(json)), as('pro-1'));
    expect(ok.passkeyData!.userId).toBe('usr-1');
  });

  it('a replayed response is refused: the ceremony is single-use', async () => {
    const { finish, request } = await appendPasskey(env.client);
    await finish;
    const replay = await failure(env.client.finishAppend(request, as('pro-1')));
    expect(replay.code).toBe(Code.FailedPrecondition);
    expect(replay.type).toBe('challenge_not_found_or_used');
    expect(await credentials().countDocuments({})).toBe(1);
  });

  it('an expired ceremony is FailedPrecondition challenge_expired (410 at the gateway), then gone', async () => {
    const start = await startAppend(env.client);
    const { json } = new SoftAuthenticator().createFromOptions(start.attestationOptions, ORIGIN);
    env.clock.advance(300_000);
    const request = finishAppendRequest({}, JSON.stringify(json));
    const expired = await failure(env.client.finishAppend(request, as('pro-1')));
    expect(expired.code).toBe(Code.FailedPrecondition);
    expect(expired.type).toBe('challenge_expired');
    expect((await failure(env.client.finishAppend(request, as('pro-1')))).type).toBe('challenge_not_found_or_used');
  });

  it('just before expiry the ceremony still finishes', async () => {
    const start = await startAppend(env.client);
    const { json } = new SoftAuthenticator().createFromOptions(start.attestationOptions, ORIGIN);
    env.clock.advance(299_999);
    const ok = await env.client.finishAppend(finishAppendRequest({}, JSON.stringify(json)), as('pro-1'));
    expect(ok.passkeyData).toBeDefined();
  });

  it('of two concurrent identical finishes exactly one succeeds', async () => {
    const { finish, request } = await appendPasskey(env.client);
    const results = await Promise.allSettled([finish, env.client.finishAppend(request, as('pro-1')), env.client.finishAppend(request, as('pro-1'))]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
      expect((await failure(Promise.reject(r.reason))).type).toBe('challenge_not_found_or_used');
    }
    expect(await credentials().countDocuments({})).toBe(1);
  });

  it('re-registering a credential ID is AlreadyExists passkey_already_exists, for the same or another user', async () => {
    const first = await registered(env.client);
    for (const userId of ['usr-1', 'usr-2']) {
      const again = await appendPasskey(env.client, { userId, auth: first.auth, create: { credentialId: first.credential.id } });
      const f = await failure(again.finish);
      expect(f.code).toBe(Code.AlreadyExists);
      expect(f.type).toBe('passkey_already_exists');
    }
    expect(await credentials().countDocuments({})).toBe(1);
    // The same credential ID in another project is another project's business.
    const other = await appendPasskey(env.client, { projectId: 'pro-2', origin: 'https://other.test', auth: first.auth, create: { credentialId: first.credential.id } });
    await expect(other.finish).resolves.toBeDefined();
  });

  it('a public key whose type or curve does not fit its algorithm is InvalidArgument public_key_mismatch, and nothing is stored', async () => {
    // An RSA key that says ES256, an EC2 key that says EdDSA, a P-256 key that says P-384.
    const cases: { algorithm: SoftAlgorithm; coseKeyFields: Record<number, number> }[] = [
      { algorithm: 'RS256', coseKeyFields: { 3: -7 } },
      { algorithm: 'ES256', coseKeyFields: { 3: -8 } },
      { algorithm: 'ES256', coseKeyFields: { 3: -35 } },
    ];
    for (const { algorithm, coseKeyFields } of cases) {
      const r = await appendPasskey(env.client, { create: { algorithm, coseKeyFields } });
      const f = await failure(r.finish);
      expect({ code: f.code, type: f.type }, JSON.stringify(coseKeyFields)).toEqual({ code: Code.InvalidArgument, type: 'public_key_mismatch' });
    }
    expect(await env.store.db.collection('credentials').countDocuments({})).toBe(0);
  });

  it('a tampered packed attestation signature is InvalidArgument attestation_invalid', async () => {
    const { finish } = await appendPasskey(env.client, {
      create: { fmt: 'packed' },
      mutate: (json) => {
        const response = json.response as Record<string, string>;
        const clientData = JSON.parse(Buffer.from(response.clientDataJSON, 'base64url').toString());
        // Same challenge and origin, different bytes: the attestation signature no longer covers them.
        response.clientDataJSON = Buffer.from(JSON.stringify({ ...clientData, extra: 1 })).toString('base64url');
        return json;
      },
    });
    const f = await failure(finish);
    expect(f.code).toBe(Code.InvalidArgument);
    expect(f.type).toBe('attestation_invalid');
  });

  describe('malformed attestation responses are InvalidArgument on attestationResponse, and consume nothing', () => {
    const bad: Array<[string, (json: Record<string, unknown>) => unknown]> = [
      ['not JSON', () => '{"id": '],
      ['a JSON array', () => '[]'],
      ['a JSON string', () => '"hello"'],
      ['id of the wrong type', (j) => ({ ...j, id: 42 })],
      ['id that is not base64url', (j) => ({ ...j, id: 'not base64url!', rawId: 'not base64url!' })],
      ['rawId of another credential', (j) => ({ ...j, rawId: 'AAAA' })],
      ['type other than public-key', (j) => ({ ...j, type: 'password' })],
      ['no response', (j) => ({ ...j, response: undefined })],
      ['response as a string', (j) => ({ ...j, response: 'x' })],
      ['authenticatorAttachment of an unknown kind', (j) => ({ ...j, authenticatorAttachment: 'bluetooth' })],
      ['clientExtensionResults not an object', (j) => ({ ...j, clientExtensionResults: 7 })],
      ['clientDataJSON that is not base64url', (j) => ({ ...j, response: { ...(j.response as object), clientDataJSON: '***' } })],
      ['clientDataJSON of impossible length', (j) => ({ ...j, response: { ...(j.response as object), clientDataJSON: 'AAAAA' } })],
      ['clientDataJSON that is not JSON', (j) => ({ ...j, response: { ...(j.response as object), clientDataJSON: Buffer.from('nope').toString('base64url') } })],
      ['clientDataJSON without challenge', (j) => ({ ...j, response: { ...(j.response as object), clientDataJSON: Buffer.from('{"type":"webauthn.create","origin":"x"}').toString('base64url') } })],
      ['attestationObject of the wrong type', (j) => ({ ...j, response: { ...(j.response as object), attestationObject: 12 } })],
      ['attestationObject that is not base64url', (j) => ({ ...j, response: { ...(j.response as object), attestationObject: 'a+b/c' } })],
      ['attestationObject that is not CBOR', (j) => ({ ...j, response: { ...(j.response as object), attestationObject: Buffer.from([0xff, 0xfe, 0x00]).toString('base64url') } })],
      ['attestationObject that is truncated CBOR', (j) => ({ ...j, response: { ...(j.response as object), attestationObject: Buffer.from([0xa3, 0x63, 0x66]).toString('base64url') } })],
      ['attestationObject that is CBOR but no map', (j) => ({ ...j, response: { ...(j.response as object), attestationObject: Buffer.from(encodeCBOR(5)).toString('base64url') } })],
      ['attestationObject whose authData is no byte string', (j) => ({ ...j, response: { ...(j.response as object), attestationObject: Buffer.from(encodeCBOR(new Map<string, string | Map<string, string>>([['fmt', 'none'], ['attStmt', new Map()], ['authData', 'x']]))).toString('base64url') } })],
      ['attestationObject whose authData is too short', (j) => ({ ...j, response: { ...(j.response as object), attestationObject: Buffer.from(encodeCBOR(new Map<string, string | Uint8Array | Map<string, string>>([['fmt', 'none'], ['attStmt', new Map()], ['authData', new Uint8Array(10)]]))).toString('base64url') } })],
      ['transports not an array of strings', (j) => ({ ...j, response: { ...(j.response as object), transports: [1] } })],
      ['an id that differs from the attested credential ID', (j) => ({ ...j, id: 'AAAAAAAA', rawId: 'AAAAAAAA' })],
    ];
    it.each(bad)('%s', async (_name, mutate) => {
      const { finish } = await appendPasskey(env.client, { mutate });
      const f = await failure(finish);
      expect(f.code).toBe(Code.InvalidArgument);
      expect(f.type).toBe('validation_error');
      expect(f.fields).toEqual(['attestationResponse']);
      expect(await sessions().countDocuments({})).toBe(1);
      expect(await credentials().countDocuments({})).toBe(0);
    });
  });
});
