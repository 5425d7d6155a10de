/** B6/B7 (conditional-UI login) through the CeremonyService, on MongoDB. */
import { Code } from '@connectrpc/connect';
import { importJWK, jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { USER_CACHE_TTL_MS } from '../src/clients/connectDirectory.js';
import { registered } from './flows.js';
import { SoftAuthenticator, type SoftCredential } from '../../../test/kit/softAuthenticator.js';
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
  env.connect.users.set('pro-1/usr-1', { fullName: 'Ada Lovelace' });
});

const sessions = () => env.store.db.collection('ceremony_sessions');

async function startMediation(processId?: string, over: Record<string, unknown> = {}) {
  return env.client.startMediation({ clientInformation: clientInformation(over), ...(processId !== undefined ? { processId } : {}) }, as('pro-1'));
}

async function mediate(auth: SoftAuthenticator, credential: SoftCredential, o: { startProcess?: string; finishProcess?: string; sign?: boolean; origin?: string } = {}) {
  const start = await startMediation(o.startProcess);
  const json = auth.getFromOptions(start.assertionOptions, credential, o.origin ?? ORIGIN);
  const request = {
    assertionResponse: JSON.stringify(json),
    clientInformation: clientInformation(),
    processId: o.finishProcess ?? o.startProcess ?? 'proc-m',
    trackingId: 'trk-m',
    ...(o.sign !== undefined ? { signPasskeyData: o.sign } : {}),
  };
  return { start, request, finish: env.client.finishMediation(request, as('pro-1')) };
}

describe('StartMediation (B6)', () => {
  it('returns discoverable options (no allowCredentials) and binds the session to project and process', async () => {
    const r = await startMediation('proc-m');
    expect(r.loginAllow).toBe(true);
    const { publicKey } = JSON.parse(r.assertionOptions);
    expect(publicKey).toMatchObject({ rpId: 'example.com', userVerification: 'required', timeout: 300_000 });
    expect(publicKey).not.toHaveProperty('allowCredentials');
    expect(await sessions().findOne({ challenge: publicKey.challenge })).toMatchObject({ projectId: 'pro-1', operation: 'mediation', userId: '', processId: 'proc-m' });
    expect(env.insights.eventTypes()).toEqual(['mediation-started']);
  });

  it('allows conditional UI only where the client reports it', async () => {
    expect((await startMediation(undefined, { conditionalMediationAvailable: false })).loginAllow).toBe(false);
    expect((await startMediation(undefined, { conditionalMediationAvailable: false, clientCapabilities: { conditionalMediation: true } })).loginAllow).toBe(true);
    const s = await sessions().find({}).toArray();
    expect(s.map((d) => d.processId)).toEqual(['', '']);
  });
});

describe('FinishMediation (B7)', () => {
  it('identifies the user from the passkey and answers passkeyData, signed when asked', async () => {
    const reg = await registered(env.client);
    const { finish } = await mediate(reg.auth, reg.credential, { startProcess: 'proc-m', sign: true });
    const r = await finish;
    expect(r.error).toBeUndefined();
    expect(r.passkeyData).toMatchObject({ id: reg.finished.passkeyData!.id, userId: 'usr-1', username: 'ada@example.com', ceremonyType: 'local' });
    const { payload } = await jwtVerify(r.signedPasskeyData!, await importJWK(env.connect.publicJwk, 'ES256'), { audience: 'pro-1' });
    expect(payload).toMatchObject({ sub: 'usr-1', id: r.passkeyData!.id, challengeID: r.passkeyData!.challengeId });
    expect(env.insights.eventTypes().at(-1)).toBe('mediation-succeeded');
    expect(await env.store.db.collection('credentials').findOne({})).toMatchObject({ counter: 1 });
  });

  it('takes a finish without trackingID (the published Node SDK 3.x sends none)', async () => {
    const reg = await registered(env.client);
    const start = await startMediation('proc-sdk');
    const json = reg.auth.getFromOptions(start.assertionOptions, reg.credential, ORIGIN);
    const r = await env.client.finishMediation({ assertionResponse: JSON.stringify(json), clientInformation: clientInformation(), processId: 'proc-sdk' }, as('pro-1'));
    expect(r.passkeyData).toMatchObject({ id: reg.finished.passkeyData!.id, userId: 'usr-1' });
    expect(env.insights.events.at(-1)).toMatchObject({ type: 'mediation-succeeded', trackingId: undefined });
  });

  it('a mediation started without a process may be finished by any process; one started with a process only by it', async () => {
    const reg = await registered(env.client);
    await expect((await mediate(reg.auth, reg.credential, { finishProcess: 'any' })).finish).resolves.toMatchObject({ passkeyData: { userId: 'usr-1' } });
    const f = await failure((await mediate(reg.auth, reg.credential, { startProcess: 'proc-a', finishProcess: 'proc-b' })).finish);
    expect(f.code).toBe(Code.FailedPrecondition);
    expect(f.type).toBe('challenge_not_found_or_used');
  });

  it('an unknown credential answers 200 with error credentialDeleted and no passkeyData', async () => {
    const stranger = new SoftAuthenticator();
    const { credential } = stranger.create({ challenge: 'x', rpId: 'example.com', origin: ORIGIN, userHandle: 'eA' });
    const r = await (await mediate(stranger, credential)).finish;
    expect(r.error?.type).toBe('credentialDeleted');
    expect(r.passkeyData).toBeUndefined();
    expect(r.signedPasskeyData).toBeUndefined();
    expect(env.insights.events.at(-1)).toMatchObject({ type: 'mediation-failed', reason: 'credential-deleted' });
  });

  it('a replay with an unknown credential answers the used challenge, never credentialDeleted', async () => {
    const stranger = new SoftAuthenticator();
    const { credential } = stranger.create({ challenge: 'x', rpId: 'example.com', origin: ORIGIN, userHandle: 'eA' });
    const { finish, request } = await mediate(stranger, credential);
    expect((await finish).error?.type).toBe('credentialDeleted');
    const replay = await failure(env.client.finishMediation(request, as('pro-1')));
    expect([replay.code, replay.type]).toEqual([Code.FailedPrecondition, 'challenge_not_found_or_used']);
    expect(env.insights.events.at(-1)).toMatchObject({ type: 'mediation-failed', reason: 'challenge_not_found_or_used' });
  });

  it('looks the credential up while the session is being consumed (one store round trip for both)', async () => {
    const reg = await registered(env.client);
    const { sessions: sessionStore, credentials: credentialStore } = env.deps;
    const consume = sessionStore.consume;
    const findByCredentialId = credentialStore.findByCredentialId;
    let consumed = false;
    const consumedWhenLookedUp: boolean[] = [];
    sessionStore.consume = (...args) => consume.apply(sessionStore, args).finally(() => (consumed = true));
    credentialStore.findByCredentialId = (...args) => {
      consumedWhenLookedUp.push(consumed);
      return findByCredentialId.apply(credentialStore, args);
    };
    try {
      expect((await (await mediate(reg.auth, reg.credential)).finish).passkeyData?.userId).toBe('usr-1');
    } finally {
      sessionStore.consume = consume;
      credentialStore.findByCredentialId = findByCredentialId;
    }
    expect(consumedWhenLookedUp).toEqual([false]);
  });

  it('a deleted passkey answers credentialDeleted', async () => {
    const reg = await registered(env.client);
    await env.client.deleteCredential({ userId: 'usr-1', credentialId: reg.finished.passkeyData!.id }, as('pro-1'));
    const r = await (await mediate(reg.auth, reg.credential)).finish;
    expect(r.error?.type).toBe('credentialDeleted');
    expect(r.passkeyData).toBeUndefined();
  });

  it("a passkey whose user was deleted answers credentialDeleted (once the user cache has let go of it)", async () => {
    const reg = await registered(env.client);
    // The connect service deleted the user without reaching this service (its cleanup call
    // failed): the user found at registration is remembered for at most USER_CACHE_TTL_MS.
    env.connect.users.delete('pro-1/usr-1');
    env.clock.advance(USER_CACHE_TTL_MS + 1);
    const r = await (await mediate(reg.auth, reg.credential)).finish;
    expect(r.error?.type).toBe('credentialDeleted');
    expect(env.insights.events.at(-1)).toMatchObject({ type: 'mediation-failed', reason: 'user-deleted', userId: 'usr-1' });
  });

  it("deleting a user's passkeys forgets the user at once: a leftover passkey cannot log in", async () => {
    const reg = await registered(env.client);
    env.connect.users.delete('pro-1/usr-1');
    // As the connect service does when it deletes a user; the passkey is gone with it.
    await env.client.deleteUserCredentials({ userId: 'usr-1' }, as('pro-1'));
    expect(await env.deps.users.find('pro-1', 'usr-1')).toBeNull();
    const r = await (await mediate(reg.auth, reg.credential)).finish;
    expect(r.error?.type).toBe('credentialDeleted');
  });

  it('a passkey of another project answers credentialDeleted there', async () => {
    const reg = await registered(env.client, { projectId: 'pro-2', origin: 'https://other.test' });
    const start = await env.client.startMediation({ clientInformation: clientInformation() }, as('pro-1'));
    const json = reg.auth.getFromOptions(start.assertionOptions, reg.credential, ORIGIN, { rpId: 'example.com' });
    const r = await env.client.finishMediation({ assertionResponse: JSON.stringify(json), clientInformation: clientInformation(), processId: 'p', trackingId: 't' }, as('pro-1'));
    expect(r.error?.type).toBe('credentialDeleted');
  });

  it('any other failure is a 4xx: wrong origin, tampered signature, replay, malformed', async () => {
    const reg = await registered(env.client);
    const origin = await failure((await mediate(reg.auth, reg.credential, { origin: 'https://evil.example' })).finish);
    expect([origin.code, origin.type]).toEqual([Code.InvalidArgument, 'origin_mismatch']);

    const start = await startMediation();
    const json = reg.auth.getFromOptions(start.assertionOptions, reg.credential, ORIGIN, { tamperSignature: true });
    const req = { assertionResponse: JSON.stringify(json), clientInformation: clientInformation(), processId: 'p', trackingId: 't' };
    const tampered = await failure(env.client.finishMediation(req, as('pro-1')));
    expect([tampered.code, tampered.type]).toEqual([Code.InvalidArgument, 'signature_invalid']);
    const replay = await failure(env.client.finishMediation(req, as('pro-1')));
    expect([replay.code, replay.type]).toEqual([Code.FailedPrecondition, 'challenge_not_found_or_used']);

    const malformed = await failure(env.client.finishMediation({ ...req, assertionResponse: '{"id":' }, as('pro-1')));
    expect([malformed.code, malformed.fields]).toEqual([Code.InvalidArgument, ['assertionResponse']]);
  });

  it('of two concurrent identical finishes exactly one succeeds', async () => {
    const auth = new SoftAuthenticator({ counterStep: 0 });
    const reg = await registered(env.client, { auth });
    const { finish, request } = await mediate(auth, reg.credential);
    const results = await Promise.allSettled([finish, env.client.finishMediation(request, as('pro-1'))]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
  });
});
