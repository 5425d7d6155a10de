/**
 * The backend API's passkey events and passkey challenges through the CeremonyService on MongoDB,
 * and what the events do to the next decisions of the real insights service.
 */
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../../../test/kit/softAuthenticator.js';
import { ORIGIN } from '../../../test/kit/fakeConnect.js';
import { createInsightsService, type AppendInsightsInput, type ClientContext, type InsightsRuntime, type LoginInsightsInput } from '../src/domain/insights/index.js';
import { passkeyEventEffects } from '../src/domain/insights/passkeyEventEffects.js';
import { createInsightsStores } from '../src/store/insightsStores.js';
import { USED_SESSION_MEMORY_MS } from '../src/store/sessions.js';
import { finishAppendRequest, registered, startAppend, startLogin } from './flows.js';
import { as, clientInformation, failure, startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => {
  await env?.close();
});
beforeEach(async () => {
  await Promise.all(['credentials', 'ceremony_sessions', 'webauthn_users', 'user_insights'].map((c) => env.store.db.collection(c).deleteMany({})));
});

const nowSeconds = () => Math.floor(env.clock.ms / 1000);

describe('passkey events', () => {
  it('are created with the reference fields, listed newest first with paging, filtered, and deleted', async () => {
    const a = await env.client.createPasskeyEvent({ userId: 'usr-1', eventType: 'login-error', processId: 'pro-proc', clientEnvId: 'ceh-1', credentialId: 'cre-5' }, as('pro-1'));
    expect(a.passkeyEvent).toMatchObject({ userId: 'usr-1', eventType: 'login-error', processId: 'pro-proc', clientEnvId: 'ceh-1', credentialId: 'cre-5' });
    expect(a.passkeyEvent!.expires).toBeUndefined();
    expect(a.passkeyEvent!.passkeyEventId).toMatch(/^pke-[0-9]{20}$/);
    expect(a.passkeyEvent!.created).toBe(env.clock.now().toISOString().slice(0, 19));
    env.clock.advance(1000);
    const b = await env.client.createPasskeyEvent({ userId: 'usr-1', eventType: 'user-login-blacklisted', expires: BigInt(nowSeconds() + 3600) }, as('pro-1'));
    expect(b.passkeyEvent!.expires).toBe(BigInt(nowSeconds() + 3600));

    const all = await env.client.listPasskeyEvents({ userId: 'usr-1' }, as('pro-1'));
    expect(all.passkeyEvents.map((e) => e.passkeyEventId)).toEqual([b.passkeyEvent!.passkeyEventId, a.passkeyEvent!.passkeyEventId]);
    expect(all.paging).toMatchObject({ page: 1, totalPages: 1, totalItems: 2 });
    const oldest = await env.client.listPasskeyEvents({ userId: 'usr-1', sort: 'created:asc', pageSize: 1, page: 2 }, as('pro-1'));
    expect(oldest.passkeyEvents.map((e) => e.passkeyEventId)).toEqual([b.passkeyEvent!.passkeyEventId]);
    expect(oldest.paging).toMatchObject({ page: 2, totalPages: 2, totalItems: 2 });
    const filtered = await env.client.listPasskeyEvents({ userId: 'usr-1', filter: ['eventType:eq:login-error'] }, as('pro-1'));
    expect(filtered.passkeyEvents.map((e) => e.passkeyEventId)).toEqual([a.passkeyEvent!.passkeyEventId]);

    await env.client.deletePasskeyEvent({ userId: 'usr-1', passkeyEventId: a.passkeyEvent!.passkeyEventId }, as('pro-1'));
    expect((await env.client.listPasskeyEvents({ userId: 'usr-1' }, as('pro-1'))).paging?.totalItems).toBe(1);
    const again = await failure(env.client.deletePasskeyEvent({ userId: 'usr-1', passkeyEventId: a.passkeyEvent!.passkeyEventId }, as('pro-1')));
    expect(again).toMatchObject({ code: Code.NotFound, type: 'passkey_event_not_found' });
  });

  it('stop being listed when they expire', async () => {
    await env.client.createPasskeyEvent({ userId: 'usr-1', eventType: 'append-error', expires: BigInt(nowSeconds() + 60) }, as('pro-1'));
    expect((await env.client.listPasskeyEvents({ userId: 'usr-1' }, as('pro-1'))).paging?.totalItems).toBe(1);
    env.clock.advance(60_000);
    expect((await env.client.listPasskeyEvents({ userId: 'usr-1' }, as('pro-1'))).passkeyEvents).toEqual([]);
  });

  it('without expires last the project retention', async () => {
    await env.client.createPasskeyEvent({ userId: 'usr-1', eventType: 'login-explicit-abort' }, as('pro-1'));
    const doc = await env.store.db.collection('user_insights').findOne({ projectId: 'pro-1', userId: 'usr-1' });
    const stored = doc!.passkeyEvents[0];
    expect(stored.expires).toBeUndefined();
    expect(stored.expiresAt.getTime() - env.clock.ms).toBeGreaterThanOrEqual(24 * 3600 * 1000);
  });

  it('refuse bad input naming the field', async () => {
    expect(await failure(env.client.createPasskeyEvent({ userId: 'usr-1', eventType: 'login-bogus' }, as('pro-1')))).toMatchObject({ code: Code.InvalidArgument, fields: ['eventType'] });
    expect(await failure(env.client.createPasskeyEvent({ userId: 'usr-1', eventType: 'login-error', expires: BigInt(nowSeconds() - 1) }, as('pro-1')))).toMatchObject({
      code: Code.InvalidArgument,
      fields: ['expires'],
    });
    expect(await failure(env.client.createPasskeyEvent({ userId: 'usr-1', eventType: 'login-error', processId: 'a b<' }, as('pro-1')))).toMatchObject({ code: Code.InvalidArgument, fields: ['processID'] });
    expect(await failure(env.client.listPasskeyEvents({ userId: 'usr-1', filter: ['eventType:eq:nope'] }, as('pro-1')))).toMatchObject({ fields: ['filter'] });
    expect(await failure(env.client.listPasskeyEvents({ userId: 'usr-1', filter: ['userID:eq:usr-2'] }, as('pro-1')))).toMatchObject({ fields: ['filter'] });
    expect(await failure(env.client.listPasskeyEvents({ userId: 'usr-1', sort: 'eventType:asc' }, as('pro-1')))).toMatchObject({ fields: ['sort'] });
    expect(await failure(env.client.deletePasskeyEvent({ userId: 'usr-1', passkeyEventId: 'evt-1' }, as('pro-1')))).toMatchObject({ fields: ['passkeyEventID'] });
  });

  it("are another project's business: unknown user 404, another project's event 404", async () => {
    expect(await failure(env.client.createPasskeyEvent({ userId: 'usr-404', eventType: 'login-error' }, as('pro-1')))).toMatchObject({ code: Code.NotFound, type: 'user_not_found' });
    expect(await failure(env.client.listPasskeyEvents({ userId: 'usr-2' }, as('pro-2')))).toMatchObject({ code: Code.NotFound, type: 'user_not_found' });
    const mine = await env.client.createPasskeyEvent({ userId: 'usr-1', eventType: 'login-error' }, as('pro-1'));
    // pro-2 has a usr-1 too: the ID of pro-1's event still finds nothing there.
    expect(await failure(env.client.deletePasskeyEvent({ userId: 'usr-1', passkeyEventId: mine.passkeyEvent!.passkeyEventId }, as('pro-2')))).toMatchObject({ code: Code.NotFound });
    expect((await env.client.listPasskeyEvents({ userId: 'usr-1' }, as('pro-2'))).passkeyEvents).toEqual([]);
    expect((await env.client.listPasskeyEvents({ userId: 'usr-1' }, as('pro-1'))).paging?.totalItems).toBe(1);
  });

  it('are capped per user: beyond the cap refused, expired ones make room', async () => {
    const stores = createInsightsStores(env.store.db, { passkeyEventLimit: 3 });
    const deps = { ...env.deps, passkeyEvents: stores.users };
    const { createPasskeyEvent } = await import('../src/domain/createPasskeyEvent.js');
    const add = (expires?: number) => createPasskeyEvent(deps, { projectId: 'pro-1', userId: 'usr-2', eventType: 'login-error', processId: '', clientEnvId: '', credentialId: '', ...(expires ? { expires } : {}) });
    await add(nowSeconds() + 10);
    await add();
    await add();
    await expect(add()).rejects.toMatchObject({ kind: 'failed_precondition', type: 'too_many_passkey_events' });
    env.clock.advance(10_000);
    await add();
    const doc = await env.store.db.collection('user_insights').findOne({ projectId: 'pro-1', userId: 'usr-2' });
    expect(doc!.passkeyEvents).toHaveLength(3);
  });
});

describe('passkey events in the decisions', () => {
  let insights: InsightsRuntime;
  beforeAll(() => {
    insights = createInsightsService(createInsightsStores(env.store.db));
  });
  afterAll(async () => {
    await insights?.close();
  });
  const client: ClientContext = { remoteAddress: '::1', userAgent: clientInformation().userAgent, uvpaAvailable: true, conditionalMediationAvailable: true, capabilities: { hybridTransport: true }, clientEnvHandle: 'ceh-1' };
  const loginInput = (): LoginInsightsInput => ({
    projectId: 'pro-1',
    userId: 'usr-1',
    client,
    strategy: 'standard',
    passkeys: [{ id: 'cre-1', aaguid: '00000000-0000-0000-0000-000000000000', transports: ['internal'], backupEligible: true, clientEnvKey: 'ceh-1', createdAt: env.clock.now() }],
    now: env.clock.now(),
  });
  const appendInput = (situation: string): AppendInsightsInput => ({
    projectId: 'pro-1',
    userId: 'usr-1',
    client: { ...client, clientEnvHandle: 'ceh-other' },
    flags: { forcePasskeyAppend: false, askForAutoAppend: false, askForConditionalCreate: false, askForInAppAppend: '' },
    situation,
    passkeys: [],
    now: env.clock.now(),
  });

  it('user-login-blacklisted refuses the passkey login until it expires, or until it is deleted', async () => {
    expect((await insights.forLogin(loginInput())).loginAllow).toBe(true);
    await env.client.createPasskeyEvent({ userId: 'usr-1', eventType: 'user-login-blacklisted', expires: BigInt(nowSeconds() + 60) }, as('pro-1'));
    const refused = await insights.forLogin(loginInput());
    expect(refused).toMatchObject({ loginAllow: false, decision: { tag: 'user-login-blacklisted' } });
    env.clock.advance(60_000);
    expect((await insights.forLogin(loginInput())).loginAllow).toBe(true);

    const again = await env.client.createPasskeyEvent({ userId: 'usr-1', eventType: 'user-login-blacklisted' }, as('pro-1'));
    expect((await insights.forLogin(loginInput())).loginAllow).toBe(false);
    await env.client.deletePasskeyEvent({ userId: 'usr-1', passkeyEventId: again.passkeyEvent!.passkeyEventId }, as('pro-1'));
    expect((await insights.forLogin(loginInput())).loginAllow).toBe(true);
  });

  it('the append blacklists refuse only their situation', async () => {
    await env.client.createPasskeyEvent({ userId: 'usr-1', eventType: 'user-append-after-cross-platform-blacklisted' }, as('pro-1'));
    expect(await insights.forAppend(appendInput('after-hybrid'))).toMatchObject({ appendAllow: false, decision: { tag: 'user-append-blacklisted' } });
    expect((await insights.forAppend(appendInput('after-error'))).appendAllow).toBe(true);
    await env.client.createPasskeyEvent({ userId: 'usr-1', eventType: 'user-append-after-login-error-blacklisted' }, as('pro-1'));
    expect(await insights.forAppend(appendInput('after-error'))).toMatchObject({ appendAllow: false, decision: { tag: 'user-append-blacklisted' } });
    expect((await insights.forAppend(appendInput('default'))).appendAllow).toBe(true);
  });

  it('a reported append failure cools down the append attempt it names', async () => {
    const started = { ...appendInput('default'), started: { processId: 'proc-9' } };
    expect((await insights.forAppend(started)).appendAllow).toBe(true);
    env.clock.advance(1000);
    await env.client.createPasskeyEvent({ userId: 'usr-1', eventType: 'append-explicit-abort', processId: 'proc-9' }, as('pro-1'));
    env.clock.advance(1000);
    expect(await insights.forAppend(appendInput('default'))).toMatchObject({ appendAllow: false, decision: { tag: 'default-cooldown' } });
  });

  it('passkeyEventEffects counts only events between their creation and expiry', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const ev = (eventType: string, createdMs: number, expiresMs: number) => ({ eventType, createdAt: new Date(now.getTime() + createdMs), expiresAt: new Date(now.getTime() + expiresMs) });
    expect(passkeyEventEffects([ev('user-login-blacklisted', -10, 0)], now).loginBlacklisted).toBe(false);
    expect(passkeyEventEffects([ev('user-login-blacklisted', -10, 1)], now).loginBlacklisted).toBe(true);
    expect(passkeyEventEffects([ev('user-login-blacklisted', 5, 100)], now).loginBlacklisted).toBe(false);
    expect(passkeyEventEffects([ev('login-error', -10, 100)], now)).toEqual({ loginBlacklisted: false, appendBlacklisted: [], appendFailures: [] });
  });
});

describe('passkey challenges', () => {
  it('list the challenges of the user ceremonies: pending, then completed after the finish', async () => {
    const auth = new SoftAuthenticator();
    const start = await startAppend(env.client);
    const reg = JSON.parse(start.attestationOptions).publicKey.challenge;
    let list = await env.client.listPasskeyChallenges({ userId: 'usr-1' }, as('pro-1'));
    expect(list.passkeyChallenges).toEqual([expect.objectContaining({ type: 'register', value: reg, status: 'pending', created: BigInt(nowSeconds()), expires: BigInt(nowSeconds() + 300) })]);
    expect(list.passkeyChallenges[0].challengeId).toMatch(/^pch-/);
    const { json } = auth.createFromOptions(start.attestationOptions, ORIGIN);
    await env.client.finishAppend(finishAppendRequest({}, JSON.stringify(json)), as('pro-1'));
    env.clock.advance(1000);
    const login = await startLogin(env.client);
    const authChallenge = JSON.parse(login.assertionOptions).publicKey.challenge;
    list = await env.client.listPasskeyChallenges({ userId: 'usr-1' }, as('pro-1'));
    expect(list.passkeyChallenges.map((c) => [c.type, c.value, c.status])).toEqual([
      ['authenticate', authChallenge, 'pending'],
      ['register', reg, 'completed'],
    ]);
    // The completed one keeps its challenge's own expiry.
    expect(list.passkeyChallenges[1].expires).toBe(BigInt(nowSeconds() - 1 + 300));
    expect(list.paging).toMatchObject({ page: 1, totalPages: 1, totalItems: 2 });
    const filtered = await env.client.listPasskeyChallenges({ userId: 'usr-1', filter: ['status:eq:completed'] }, as('pro-1'));
    expect(filtered.passkeyChallenges.map((c) => c.value)).toEqual([reg]);
    const byType = await env.client.listPasskeyChallenges({ userId: 'usr-1', filter: ['type:eq:authenticate'], sort: 'created:asc' }, as('pro-1'));
    expect(byType.passkeyChallenges.map((c) => c.value)).toEqual([authChallenge]);
    // A used challenge is remembered for a while, then swept like an expired one.
    const doc = await env.store.db.collection('ceremony_sessions').findOne({ challenge: reg });
    expect(doc!.expiresAt.getTime()).toBe(env.clock.ms - 1000 + USED_SESSION_MEMORY_MS);
  });

  it('a challenge marked consumed makes its finish fail as a used one does', async () => {
    const auth = new SoftAuthenticator();
    const { credential } = await registered(env.client, { auth });
    const start = await startLogin(env.client);
    const list = await env.client.listPasskeyChallenges({ userId: 'usr-1', filter: ['status:eq:pending'] }, as('pro-1'));
    expect(list.passkeyChallenges).toHaveLength(1);
    const id = list.passkeyChallenges[0].challengeId;
    const marked = await env.client.updatePasskeyChallenge({ userId: 'usr-1', passkeyChallengeId: id, status: 'consumed' }, as('pro-1'));
    expect(marked.passkeyChallenge).toMatchObject({ challengeId: id, status: 'consumed', type: 'authenticate' });
    // Marking again answers the same.
    expect((await env.client.updatePasskeyChallenge({ userId: 'usr-1', passkeyChallengeId: id, status: 'consumed' }, as('pro-1'))).passkeyChallenge?.status).toBe('consumed');

    const json = auth.getFromOptions(start.assertionOptions, credential, ORIGIN);
    const finish = env.client.finishLogin({ userId: 'usr-1', processId: 'proc-2', assertionResponse: JSON.stringify(json), clientInformation: clientInformation() }, as('pro-1'));
    expect(await failure(finish)).toMatchObject({ code: Code.FailedPrecondition, type: 'challenge_not_found_or_used' });
  });

  it('a completed challenge cannot be marked consumed; only consumed can be set', async () => {
    await registered(env.client);
    const [done] = (await env.client.listPasskeyChallenges({ userId: 'usr-1' }, as('pro-1'))).passkeyChallenges;
    expect(done.status).toBe('completed');
    expect(await failure(env.client.updatePasskeyChallenge({ userId: 'usr-1', passkeyChallengeId: done.challengeId, status: 'consumed' }, as('pro-1')))).toMatchObject({
      code: Code.FailedPrecondition,
      type: 'passkey_challenge_completed',
    });
    await startLogin(env.client);
    const pending = (await env.client.listPasskeyChallenges({ userId: 'usr-1', filter: ['status:eq:pending'] }, as('pro-1'))).passkeyChallenges[0];
    for (const status of ['pending', 'completed']) {
      expect(await failure(env.client.updatePasskeyChallenge({ userId: 'usr-1', passkeyChallengeId: pending.challengeId, status }, as('pro-1')))).toMatchObject({ code: Code.InvalidArgument, fields: ['status'] });
    }
    expect(await failure(env.client.updatePasskeyChallenge({ userId: 'usr-1', passkeyChallengeId: pending.challengeId, status: 'used' }, as('pro-1')))).toMatchObject({ fields: ['status'] });
    expect(await failure(env.client.listPasskeyChallenges({ userId: 'usr-1', filter: ['type:eq:create'] }, as('pro-1')))).toMatchObject({ fields: ['filter'] });
  });

  it("another project's user or challenge is not found", async () => {
    await startLogin(env.client);
    const [mine] = (await env.client.listPasskeyChallenges({ userId: 'usr-1' }, as('pro-1'))).passkeyChallenges;
    expect(await failure(env.client.updatePasskeyChallenge({ userId: 'usr-1', passkeyChallengeId: mine.challengeId, status: 'consumed' }, as('pro-2')))).toMatchObject({
      code: Code.NotFound,
      type: 'passkey_challenge_not_found',
    });
    expect((await env.client.listPasskeyChallenges({ userId: 'usr-1' }, as('pro-2'))).passkeyChallenges).toEqual([]);
    expect(await failure(env.client.listPasskeyChallenges({ userId: 'usr-404' }, as('pro-1')))).toMatchObject({ code: Code.NotFound, type: 'user_not_found' });
    expect((await env.client.listPasskeyChallenges({ userId: 'usr-1', filter: ['status:eq:pending'] }, as('pro-1'))).passkeyChallenges).toHaveLength(1);
  });
});
