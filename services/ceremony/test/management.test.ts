/** ListCredentials, DeleteCredential and DeleteUserCredentials, on MongoDB. */
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { login, registered, startAppend, startLogin } from './flows.js';
import { SoftAuthenticator } from '../../../test/kit/softAuthenticator.js';
import { as, failure, startTestEnv, type TestEnv } from './support.js';

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
  env.insights.forgotten.length = 0;
});

/** Three passkeys of usr-1, a minute apart; the first is used last. */
async function threePasskeys() {
  const made = [];
  for (const aaguid of ['fbfc3007-154e-4ecc-8c0b-6e020557d7bd', 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4', '00000000-0000-0000-0000-000000000000']) {
    made.push(await registered(env.client, { auth: new SoftAuthenticator({ aaguid, flags: { be: true } }) }));
    env.clock.advance(60_000);
  }
  await (await login(env.client, made[0].auth, made[0].credential)).finish;
  return made.map((m) => m.finished.passkeyData!.id);
}

describe('ListCredentials', () => {
  it("lists the user's passkeys in the reference shape, oldest first by default", async () => {
    const ids = await threePasskeys();
    await registered(env.client, { userId: 'usr-2' });
    const r = await env.client.listCredentials({ userId: 'usr-1' }, as('pro-1'));
    expect(r.credentials.map((c) => c.id)).toEqual(ids);
    expect(r.paging).toMatchObject({ page: 1, totalPages: 1, totalItems: 3 });
    const first = r.credentials[0];
    expect(first).toMatchObject({
      attestationType: 'none',
      transport: ['hybrid', 'internal'],
      backupEligible: true,
      backupState: false,
      authenticatorAaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
      sourceOs: 'macOS',
      sourceBrowser: 'Chrome',
      status: 'active',
      aaguidDetails: { aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd', name: 'Apple Passwords' },
    });
    expect(first.credentialId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(first.lastUsed).toBe(new Date(env.clock.ms).toISOString().slice(0, 19));
    expect(r.credentials[1].aaguidDetails?.name).toBe('Google Password Manager');
    expect(r.credentials[2].aaguidDetails?.name).toBe('Passkey');
    expect(r.credentials[2].aaguidDetails?.iconLight).toMatch(/^data:image\/svg\+xml;base64,/);
  });

  it('sorts by created or lastUsed, both directions, and pages', async () => {
    const [a, b, c] = await threePasskeys();
    const list = async (sort: string, page?: number, pageSize?: number) => (await env.client.listCredentials({ userId: 'usr-1', sort, page, pageSize }, as('pro-1')));
    expect((await list('created:desc')).credentials.map((x) => x.id)).toEqual([c, b, a]);
    expect((await list('lastUsed:desc')).credentials.map((x) => x.id)).toEqual([a, c, b]);
    expect((await list('lastUsed:asc')).credentials.map((x) => x.id)).toEqual([b, c, a]);
    const page2 = await list('created:asc', 2, 2);
    expect(page2.credentials.map((x) => x.id)).toEqual([c]);
    expect(page2.paging).toMatchObject({ page: 2, totalPages: 2, totalItems: 3 });
    expect((await list('', 3, 2)).credentials).toEqual([]);
  });

  it("an unknown sort is InvalidArgument on sort; another project sees nothing; an unknown user is NotFound", async () => {
    await threePasskeys();
    for (const sort of ['name:asc', 'created', 'created:up', 'created:asc:x']) {
      const f = await failure(env.client.listCredentials({ userId: 'usr-1', sort }, as('pro-1')));
      expect(f.code).toBe(Code.InvalidArgument);
      expect(f.fields).toEqual(['sort']);
    }
    expect((await env.client.listCredentials({ userId: 'usr-1' }, as('pro-2'))).credentials).toEqual([]);
    const f = await failure(env.client.listCredentials({ userId: 'usr-99' }, as('pro-1')));
    expect([f.code, f.type]).toEqual([Code.NotFound, 'user_not_found']);
  });
});

describe('DeleteCredential', () => {
  it("deletes one passkey of the user, records it, and it no longer logs in", async () => {
    const reg = await registered(env.client);
    const other = await registered(env.client);
    await env.client.deleteCredential({ userId: 'usr-1', credentialId: reg.finished.passkeyData!.id }, as('pro-1'));
    expect((await env.client.listCredentials({ userId: 'usr-1' }, as('pro-1'))).credentials.map((c) => c.id)).toEqual([other.finished.passkeyData!.id]);
    expect(env.insights.events.at(-1)).toMatchObject({ type: 'credential-deleted', userId: 'usr-1', credentialId: reg.finished.passkeyData!.id });
    const f = await failure((await login(env.client, reg.auth, reg.credential)).finish);
    expect([f.code, f.type]).toEqual([Code.NotFound, 'credential_not_found']);
  });

  it("another user's, another project's or an unknown passkey is NotFound credential_not_found", async () => {
    const reg = await registered(env.client);
    const id = reg.finished.passkeyData!.id;
    for (const [userId, projectId, credentialId] of [['usr-2', 'pro-1', id], ['usr-1', 'pro-2', id], ['usr-1', 'pro-1', 'cre-1']]) {
      const f = await failure(env.client.deleteCredential({ userId, credentialId }, as(projectId)));
      expect([f.code, f.type]).toEqual([Code.NotFound, 'credential_not_found']);
    }
    expect(await env.store.db.collection('credentials').countDocuments({})).toBe(1);
  });
});

describe('DeleteUserCredentials', () => {
  it("removes the user's passkeys, open ceremonies and handle, tells the insights, and leaves others alone", async () => {
    await threePasskeys();
    await registered(env.client, { userId: 'usr-2' });
    await registered(env.client, { projectId: 'pro-2', origin: 'https://other.test' });
    const oldHandle = JSON.parse((await startAppend(env.client)).attestationOptions).publicKey.user.id;
    await startLogin(env.client);

    const r = await env.client.deleteUserCredentials({ userId: 'usr-1' }, as('pro-1'));
    expect(r.deleted).toBe(3);
    const db = env.store.db;
    expect(await db.collection('credentials').countDocuments({ projectId: 'pro-1', userId: 'usr-1' })).toBe(0);
    expect(await db.collection('ceremony_sessions').countDocuments({ projectId: 'pro-1', userId: 'usr-1' })).toBe(0);
    expect(await db.collection('webauthn_users').countDocuments({ projectId: 'pro-1', userId: 'usr-1' })).toBe(0);
    expect(await db.collection('credentials').countDocuments({})).toBe(2);
    expect(env.insights.forgotten).toEqual(['pro-1/usr-1']);
    // Idempotent.
    expect((await env.client.deleteUserCredentials({ userId: 'usr-1' }, as('pro-1'))).deleted).toBe(0);
    // A user created again under that ID would get a fresh handle.
    expect(JSON.parse((await startAppend(env.client)).attestationOptions).publicKey.user.id).not.toBe(oldHandle);
  });

  it('needs the project', async () => {
    expect((await failure(env.client.deleteUserCredentials({ userId: 'usr-1' }))).code).toBe(Code.Unauthenticated);
  });
});
