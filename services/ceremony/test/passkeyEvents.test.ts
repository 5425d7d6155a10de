/**
 * The ceremony's webhook events in its outbox: passkey.created (B3) and passkey.deleted around
 * their change, and only for a change that happened; passkey-login.completed, passkey-login.failed
 * and passkey.clone-detected recorded by B5 and B7 before they answer; the confirmer of entries
 * left prepared.
 */
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OutboxEvent, OutboxRecord } from '../../runtime/outbox.js';
import { ORIGIN } from '../../../test/kit/fakeConnect.js';
import type { SoftAuthenticator, SoftCredential } from '../../../test/kit/softAuthenticator.js';
import { confirmPasskeyEvent } from '../src/domain/confirmPasskeyEvent.js';
import { mongoCredentialStore } from '../src/store/credentials.js';
import { appendPasskey, login, registered } from './flows.js';
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
  env.events.events = [];
  env.events.failWith = null;
  env.connect.users.set('pro-1/usr-1', { fullName: 'Ada Lovelace' });
});

/** What support.ts's clientInformation() describes: a Mac with Chrome. */
const CLIENT = { ip: '::ffff:172.18.0.1', os: 'macOS', browser: 'Chrome' };
const credentials = () => env.store.db.collection<{ _id: string; [field: string]: any }>('credentials');
const stored = async () => (await credentials().findOne({}))!;
const eventsOf = (type: string) => env.events.events.filter((e) => e.type === type);

/** The IDs and the hosted service's `credential` object of a stored passkey. */
async function passkeyData() {
  const p = await stored();
  return { userID: p.userId, passkeyID: p._id, credentialID: p.credentialId, credential: { id: p._id, webAuthnID: p.userHandle, browser: 'Chrome', os: 'macOS' } };
}

async function mediate(auth: SoftAuthenticator, credential: SoftCredential) {
  const start = await env.client.startMediation({ clientInformation: clientInformation(), processId: 'proc-m' }, as('pro-1'));
  const json = auth.getFromOptions(start.assertionOptions, credential, ORIGIN);
  return env.client.finishMediation({ assertionResponse: JSON.stringify(json), clientInformation: clientInformation(), processId: 'proc-m', trackingId: 'trk-m' }, as('pro-1'));
}

describe('passkey.created', () => {
  it('is recorded with the backend API IDs, the hosted credential object and the client', async () => {
    const { finished } = await registered(env.client);
    const p = await stored();
    expect(p._id).toBe(finished.passkeyData!.id);
    expect(env.events.events).toEqual([{ projectId: 'pro-1', type: 'passkey.created', data: { ...(await passkeyData()), aaguid: p.aaguid }, client: CLIENT }]);
  });

  it('is not recorded for a passkey that was not stored, and no passkey is stored when the event cannot be', async () => {
    const first = await registered(env.client);
    env.events.events = [];
    // The same credential again: refused as a duplicate, no event.
    const again = await appendPasskey(env.client, { auth: first.auth, create: { credentialId: first.credential.id } });
    await expect(again.finish).rejects.toThrow();
    expect(env.events.events).toEqual([]);
    env.events.failWith = new Error('store unavailable');
    await expect((await appendPasskey(env.client, { userId: 'usr-2' })).finish).rejects.toThrow();
    expect(await credentials().countDocuments({ userId: 'usr-2' })).toBe(0);
  });
});

describe('passkey.deleted', () => {
  it('is recorded around the delete of one passkey (backend API, and /v2/me through connect), without a client', async () => {
    await registered(env.client);
    const data = await passkeyData();
    env.events.events = [];
    await env.client.deleteCredential({ userId: 'usr-1', credentialId: data.passkeyID }, as('pro-1'));
    expect(env.events.events).toEqual([{ projectId: 'pro-1', type: 'passkey.deleted', data }]);
    expect(await credentials().countDocuments({})).toBe(0);
  });

  it('is not recorded for a passkey that is not there, and the passkey stays when the event cannot be written', async () => {
    await registered(env.client);
    const { passkeyID } = await passkeyData();
    env.events.events = [];
    // Another user's or project's passkey, or none: 404 and no event.
    for (const [userId, projectId, id] of [['usr-2', 'pro-1', passkeyID], ['usr-1', 'pro-2', passkeyID], ['usr-1', 'pro-1', 'cre-1']] as const) {
      expect((await failure(env.client.deleteCredential({ userId, credentialId: id }, as(projectId)))).type).toBe('credential_not_found');
    }
    expect(env.events.events).toEqual([]);
    env.events.failWith = new Error('store unavailable');
    await expect(env.client.deleteCredential({ userId: 'usr-1', credentialId: passkeyID }, as('pro-1'))).rejects.toThrow();
    expect(await credentials().countDocuments({ _id: passkeyID })).toBe(1);
  });

  it('is not recorded for the passkeys removed with their user: user.deleted says it', async () => {
    await registered(env.client);
    await registered(env.client);
    env.events.events = [];
    expect((await env.client.deleteUserCredentials({ userId: 'usr-1' }, as('pro-1'))).deleted).toBe(2);
    expect(env.events.events).toEqual([]);
  });
});

describe('passkey-login.completed', () => {
  it('is recorded by B5 once the assertion is verified and saved, with the passkey and the client', async () => {
    const reg = await registered(env.client);
    env.events.events = [];
    await (await login(env.client, reg.auth, reg.credential)).finish;
    expect(env.events.events).toEqual([{ projectId: 'pro-1', type: 'passkey-login.completed', data: await passkeyData(), client: CLIENT }]);
  });

  it('is recorded by B7 (conditional UI) for the user the passkey belongs to', async () => {
    const reg = await registered(env.client);
    env.events.events = [];
    const done = await mediate(reg.auth, reg.credential);
    expect(done.passkeyData?.userId).toBe('usr-1');
    expect(env.events.events).toEqual([{ projectId: 'pro-1', type: 'passkey-login.completed', data: await passkeyData(), client: CLIENT }]);
  });

  it('must be durable before the login is answered: when it cannot be written, the login fails', async () => {
    const reg = await registered(env.client);
    env.events.events = [];
    const started = await login(env.client, reg.auth, reg.credential);
    env.events.failWith = new Error('store unavailable');
    await expect(started.finish).rejects.toThrow();
    expect(env.events.events).toEqual([]);
  });
});

describe('passkey-login.failed', () => {
  const failed = (data: Record<string, unknown>): OutboxEvent => ({ projectId: 'pro-1', type: 'passkey-login.failed', data, client: CLIENT });

  it('names the reason the ceremony answered: signature_invalid, credential_not_found, challenge_not_found_or_used, challenge_expired', async () => {
    const reg = await registered(env.client);
    const { passkeyID, credentialID } = await passkeyData();
    env.events.events = [];

    const forged = await login(env.client, reg.auth, reg.credential, {
      mutate: (json) => {
        const response = (json as { response: { signature: string } }).response;
        response.signature = Buffer.from('not a signature').toString('base64url');
        return json;
      },
    });
    const forgedType = (await failure(forged.finish)).type;
    expect(forgedType).toMatch(/^(signature_invalid|assertion_invalid)$/);
    expect(eventsOf('passkey-login.failed').at(-1)).toEqual(failed({ userID: 'usr-1', passkeyID, credentialID, reason: forgedType }));

    // Another user's passkey: the event names the credential the response named, not the passkey.
    const other = await login(env.client, reg.auth, reg.credential, { userId: 'usr-2', finishUserId: 'usr-2' });
    expect((await failure(other.finish)).type).toBe('credential_not_found');
    expect(eventsOf('passkey-login.failed').at(-1)).toEqual(failed({ userID: 'usr-2', credentialID, reason: 'credential_not_found' }));

    const once = await login(env.client, reg.auth, reg.credential, { processId: 'proc-x' });
    await once.finish;
    const replayed = env.client.finishLogin(once.request, as('pro-1'));
    expect((await failure(replayed)).type).toBe('challenge_not_found_or_used');
    expect(eventsOf('passkey-login.failed').at(-1)).toEqual(failed({ userID: 'usr-1', passkeyID, credentialID, reason: 'challenge_not_found_or_used' }));

    const late = await login(env.client, reg.auth, reg.credential, { processId: 'proc-late' });
    env.clock.advance(10 * 60_000);
    expect((await failure(late.finish)).type).toBe('challenge_expired');
    expect(eventsOf('passkey-login.failed').at(-1)).toEqual(failed({ userID: 'usr-1', passkeyID, credentialID, reason: 'challenge_expired' }));
    expect(eventsOf('passkey-login.failed')).toHaveLength(4);
    expect(eventsOf('passkey-login.completed')).toHaveLength(1);
  });

  it('is recorded by B7 for a passkey that is gone, as credential_deleted', async () => {
    const reg = await registered(env.client);
    const { passkeyID, credentialID } = await passkeyData();
    await env.client.deleteCredential({ userId: 'usr-1', credentialId: passkeyID }, as('pro-1'));
    env.events.events = [];
    expect((await mediate(reg.auth, reg.credential)).error?.type).toBe('credentialDeleted');
    expect(env.events.events).toEqual([failed({ credentialID, reason: 'credential_deleted' })]);
  });

  it('must be durable before the refusal is answered', async () => {
    const reg = await registered(env.client);
    const late = await login(env.client, reg.auth, reg.credential);
    env.clock.advance(10 * 60_000);
    env.events.failWith = new Error('store unavailable');
    const f = await failure(late.finish);
    // Not the refusal: the caller learns that something failed and may ask again.
    expect(f.type).not.toBe('challenge_expired');
    expect(f.code).not.toBe(Code.FailedPrecondition);
  });
});

describe('passkey.clone-detected', () => {
  it('is recorded at every counter regression with both counters and the policy, together with the failed login', async () => {
    // pro-2's policy is "record": the passkey may go on logging in with a higher counter.
    const inPro2 = { projectId: 'pro-2', origin: 'https://other.test' };
    const reg = await registered(env.client, inPro2);
    await (await login(env.client, reg.auth, reg.credential, { ...inPro2, get: { counter: 5 } })).finish;
    const { passkeyID, credentialID } = await passkeyData();
    env.events.events = [];
    for (const counter of [5, 2]) {
      expect((await failure((await login(env.client, reg.auth, reg.credential, { ...inPro2, get: { counter } })).finish)).type).toBe('counter_regression');
    }
    const client = CLIENT;
    expect(env.events.events).toEqual([
      { projectId: 'pro-2', type: 'passkey.clone-detected', data: { userID: 'usr-1', passkeyID, credentialID, counter: 5, storedCounter: 5, blocked: false }, client },
      { projectId: 'pro-2', type: 'passkey-login.failed', data: { userID: 'usr-1', passkeyID, credentialID, reason: 'counter_regression' }, client },
      { projectId: 'pro-2', type: 'passkey.clone-detected', data: { userID: 'usr-1', passkeyID, credentialID, counter: 2, storedCounter: 5, blocked: false }, client },
      { projectId: 'pro-2', type: 'passkey-login.failed', data: { userID: 'usr-1', passkeyID, credentialID, reason: 'counter_regression' }, client },
    ]);
  });

  it('says blocked under "block", after which the flagged passkey fails as passkey_clone_detected (no second detection)', async () => {
    const reg = await registered(env.client);
    await (await login(env.client, reg.auth, reg.credential, { get: { counter: 5 } })).finish;
    env.events.events = [];
    await failure((await login(env.client, reg.auth, reg.credential, { get: { counter: 4 } })).finish);
    expect(eventsOf('passkey.clone-detected').map((e) => e.data)).toEqual([expect.objectContaining({ counter: 4, storedCounter: 5, blocked: true })]);
    expect((await failure((await login(env.client, reg.auth, reg.credential, { get: { counter: 9 } })).finish)).type).toBe('passkey_clone_detected');
    expect(eventsOf('passkey.clone-detected')).toHaveLength(1);
    expect(eventsOf('passkey-login.failed').map((e) => e.data.reason)).toEqual(['counter_regression', 'passkey_clone_detected']);
  });
});

describe('the confirmer of entries left prepared', () => {
  const entry = (type: string, data: Record<string, unknown>, projectId = 'pro-1'): OutboxRecord => ({ _id: 'evt-1', state: 'prepared', projectId, type, occurredAt: new Date(), data, ip: '', os: '', browser: '' });
  const confirm = () => confirmPasskeyEvent(mongoCredentialStore(env.store.db));

  it('confirms passkey.created only when that passkey is stored, passkey.deleted only when it is not', async () => {
    await registered(env.client);
    const { passkeyID, credentialID } = await passkeyData();
    expect(await confirm()(entry('passkey.created', { passkeyID, credentialID }))).toBe(true);
    expect(await confirm()(entry('passkey.created', { passkeyID: 'cre-1', credentialID }))).toBe(false);
    expect(await confirm()(entry('passkey.created', { passkeyID, credentialID }, 'pro-2'))).toBe(false);
    expect(await confirm()(entry('passkey.deleted', { passkeyID, credentialID }))).toBe(false);
    // The credential ID registered again as another passkey: the deleted one is gone.
    expect(await confirm()(entry('passkey.deleted', { passkeyID: 'cre-1', credentialID }))).toBe(true);
    await credentials().deleteMany({});
    expect(await confirm()(entry('passkey.deleted', { passkeyID, credentialID }))).toBe(true);
  });

  it('confirms passkey.clone-detected only for a flagged passkey, and never a login (written ready, never prepared)', async () => {
    const reg = await registered(env.client);
    const { passkeyID, credentialID } = await passkeyData();
    expect(await confirm()(entry('passkey.clone-detected', { passkeyID, credentialID }))).toBe(false);
    await (await login(env.client, reg.auth, reg.credential, { get: { counter: 5 } })).finish;
    await failure((await login(env.client, reg.auth, reg.credential, { get: { counter: 5 } })).finish);
    expect(await confirm()(entry('passkey.clone-detected', { passkeyID, credentialID }))).toBe(true);
    for (const type of ['passkey-login.completed', 'passkey-login.failed']) expect(await confirm()(entry(type, { passkeyID, credentialID }))).toBe(false);
    expect(await confirm()(entry('passkey.created', {}))).toBe(false);
  });
});
