/** B3 writes passkey.created into the ceremony's outbox around the passkey's insert, and only for a stored passkey. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OutboxRecord } from '../../runtime/outbox.js';
import { confirmPasskeyEvent } from '../src/domain/confirmPasskeyEvent.js';
import { mongoCredentialStore } from '../src/store/credentials.js';
import { appendPasskey, registered } from './flows.js';
import { startTestEnv, type TestEnv } from './support.js';

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
});

describe('passkey.created', () => {
  it('is recorded with the backend API IDs and the client', async () => {
    const { finished } = await registered(env.client);
    const stored = await env.store.db.collection('credentials').findOne({});
    expect(env.events.events).toEqual([
      {
        projectId: 'pro-1',
        type: 'passkey.created',
        data: { userID: 'usr-1', passkeyID: finished.passkeyData!.id, credentialID: stored!.credentialId, aaguid: stored!.aaguid },
        client: { ip: expect.any(String), os: stored!.sourceOS, browser: stored!.sourceBrowser },
      },
    ]);
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
    expect(await env.store.db.collection('credentials').countDocuments({ userId: 'usr-2' })).toBe(0);
  });

  it('confirms an abandoned entry only when that passkey is stored', async () => {
    const { finished } = await registered(env.client);
    const stored = await env.store.db.collection('credentials').findOne({});
    const confirm = confirmPasskeyEvent(mongoCredentialStore(env.store.db));
    const entry = (data: Record<string, unknown>, projectId = 'pro-1'): OutboxRecord => ({ _id: 'evt-1', state: 'prepared', projectId, type: 'passkey.created', occurredAt: new Date(), data, ip: '', os: '', browser: '' });
    expect(await confirm(entry({ passkeyID: finished.passkeyData!.id, credentialID: stored!.credentialId }))).toBe(true);
    expect(await confirm(entry({ passkeyID: 'cre-1', credentialID: stored!.credentialId }))).toBe(false);
    expect(await confirm(entry({ passkeyID: finished.passkeyData!.id, credentialID: stored!.credentialId }, 'pro-2'))).toBe(false);
  });
});
