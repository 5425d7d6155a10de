/**
 * The insights service against MongoDB: the embedded store by default, a real MongoDB when
 * MONGODB_URI is set. Every test uses its own project ID, so tests share one database.
 */
import { MongoClient, type Collection, type CommandStartedEvent } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notFound } from '../../runtime/errors.js';
import type { Store } from '../../runtime/mongo.js';
import { openTestDatabase, type TestDatabase } from '../../../test/kit/openTestDatabase.js';
import { clientEnvKey } from '../src/domain/insights/clientEnvKey.js';
import { createInsightsService, type AppendFlags, type AppendInsightsInput, type ClientContext, type InsightsRuntime, type PasskeySummary } from '../src/domain/insights/index.js';
import { CEREMONY_EVENTS, createCeremonyEventStore, type EventDoc } from '../src/store/ceremonyEvents.js';
import { insightsIndexes } from '../src/store/insightsIndexes.js';
import { createInsightsStores } from '../src/store/insightsStores.js';
import { USER_INSIGHTS, type UserInsightsDoc } from '../src/store/userInsights.js';

const T0 = new Date('2030-03-01T10:00:00.000Z');
const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const at = (offsetMs: number) => new Date(T0.getTime() + offsetMs);

const CHROME_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const INSTAGRAM_IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 311.0.2.15.109 (iPhone14,5; iOS 17_1_2; en_US; en; scale=3.00; 1170x2532; 546357281)';

function client(overrides: Partial<ClientContext> = {}): ClientContext {
  return {
    remoteAddress: '::ffff:10.0.0.7',
    userAgent: CHROME_MAC,
    uvpaAvailable: true,
    conditionalMediationAvailable: true,
    capabilities: { hybridTransport: true },
    clientEnvHandle: 'ceh-mac',
    javascriptFingerprint: 'fp-secret',
    ...overrides,
  };
}
const NO_FLAGS: AppendFlags = { forcePasskeyAppend: false, askForAutoAppend: false, askForConditionalCreate: false, askForInAppAppend: '' };
function passkey(overrides: Partial<PasskeySummary> = {}): PasskeySummary {
  return { id: 'cre-1', aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd', transports: ['internal', 'hybrid'], backupEligible: true, clientEnvKey: 'ceh-mac', sourceOS: 'macOS', createdAt: T0, ...overrides };
}

let db: TestDatabase | undefined;
let store: Store;
let uri: string;
let dbName: string;
let insights: InsightsRuntime;
let users: Collection<UserInsightsDoc>;
let events: Collection<EventDoc>;
let seq = 0;
/** A fresh project per test keeps tests independent within one database. */
const newProject = () => `pro-${Date.now()}${++seq}`;

beforeAll(async () => {
  db = await openTestDatabase('insights_test', insightsIndexes);
  ({ store, uri, dbName } = db);
  insights = createInsightsService(createInsightsStores(store.db));
  users = store.db.collection(USER_INSIGHTS);
  events = store.db.collection(CEREMONY_EVENTS);
});

afterAll(async () => {
  await insights?.close();
  await db?.close();
});

/** The user's insights document. */
const userDoc = (projectId: string, userId = 'usr-1') => users.findOne({ projectId, userId });

/**
 * Records that the user was seen in the environment, as B3 does (an event with recordVisit; a
 * login event, so the user's append history stays as it is); returns the environment's key.
 */
async function visit(service: InsightsRuntime, projectId: string, userId: string, c: ClientContext, when: Date): Promise<string> {
  await service.recordEvent({ projectId, userId, type: 'login-succeeded', client: c, at: when, recordVisit: true });
  return clientEnvKey(c);
}
/** The audit trail of a project, once everything queued is written. */
async function eventsOf(projectId: string): Promise<EventDoc[]> {
  await insights.flush();
  return events.find({ projectId }).toArray();
}

function appendInput(projectId: string, overrides: Partial<AppendInsightsInput> = {}): AppendInsightsInput {
  return { projectId, userId: 'usr-1', client: client(), flags: NO_FLAGS, situation: 'default', passkeys: [], now: T0, ...overrides };
}

describe('indexes', () => {
  it('serves user documents by _id, deletes events by (projectId, userId, at) and expires them by a TTL index on expiresAt', async () => {
    const eventIndexes = await events.indexes();
    expect(eventIndexes.find((i) => i.name === 'project_user_at')).toMatchObject({ key: { projectId: 1, userId: 1, at: -1 } });
    expect(eventIndexes.find((i) => i.name === 'expiry_ttl')).toMatchObject({ key: { expiresAt: 1 }, expireAfterSeconds: 0 });
    // The previous design's shared environment documents are neither declared nor written.
    expect(Object.keys(insightsIndexes)).not.toContain('client_envs');
    await visit(insights, newProject(), 'usr-1', client(), T0);
    expect(await store.db.listCollections({ name: 'client_envs' }).toArray()).toEqual([]);
  });
});

describe('recording a visit (recordEvent with recordVisit)', () => {
  it('returns the key and stores the environment in the user\'s own document, with its snapshot', async () => {
    const projectId = newProject();
    const key = await visit(insights, projectId, 'usr-1', client(), T0);
    expect(key).toBe('ceh-mac');
    const doc = await userDoc(projectId);
    expect(doc).toMatchObject({ projectId, userId: 'usr-1', envs: { 'ceh-mac': { key: 'ceh-mac', firstSeen: T0, lastSeen: T0 } } });
    expect(Object.keys(doc!.envs)).toEqual(['ceh-mac']);
    expect(doc!.envDetails['ceh-mac']).toMatchObject({
      userAgent: CHROME_MAC,
      os: { name: 'macOS' },
      browser: { name: 'Chrome', version: '120.0.0.0' },
      restrictedBrowser: false,
      capabilities: { platformAuthenticator: true, conditionalMediation: true, hybrid: true, passwordManager: false },
    });
  });

  it('derives a key without a handle and keeps it stable', async () => {
    const projectId = newProject();
    const c = client({ clientEnvHandle: undefined });
    const k1 = await visit(insights, projectId, 'usr-1', c, T0);
    const k2 = await visit(insights, projectId, 'usr-1', c, at(MIN));
    expect(k1).toMatch(/^derived-/);
    expect(k2).toBe(k1);
    expect(await users.countDocuments({ projectId })).toBe(1);
    expect(Object.keys((await userDoc(projectId))!.envs)).toEqual([k1]);
  });

  it('is idempotent: repeated calls keep one environment, first seen stays, last seen moves on', async () => {
    const projectId = newProject();
    for (let i = 0; i < 3; i++) await visit(insights, projectId, 'usr-1', client(), at(i * MIN));
    const docs = await users.find({ projectId }).toArray();
    expect(docs).toHaveLength(1);
    expect(Object.values(docs[0].envs)).toEqual([{ key: 'ceh-mac', firstSeen: T0, lastSeen: at(2 * MIN) }]);
  });

  it('concurrent out-of-order visits by one user keep one environment with the extreme first and last seen', async () => {
    const projectId = newProject();
    // Out of order on purpose: first/last seen must still be the extremes.
    const keys = await Promise.all(Array.from({ length: 8 }, (_, i) => visit(insights, projectId, 'usr-1', client(), at(((i * 5) % 8) * MIN))));
    expect(new Set(keys)).toEqual(new Set(['ceh-mac']));
    const docs = await users.find({ projectId }).toArray();
    expect(docs).toHaveLength(1);
    expect(Object.values(docs[0].envs)).toEqual([{ key: 'ceh-mac', firstSeen: T0, lastSeen: at(7 * MIN) }]);
  });

  it('concurrent first visits by one user in several environments make one document with every environment', async () => {
    const projectId = newProject();
    const handles = Array.from({ length: 6 }, (_, i) => `ceh-${i}`);
    await Promise.all(handles.map((h, i) => visit(insights, projectId, 'usr-1', client({ clientEnvHandle: h }), at(i * 1000))));
    const docs = await users.find({ projectId }).toArray();
    expect(docs).toHaveLength(1);
    expect(Object.keys(docs[0].envs).sort()).toEqual([...handles].sort());
  });

  it('users sharing one browser build (no handle) each get their own environment; no document holds another user', async () => {
    const projectId = newProject();
    const shared = client({ clientEnvHandle: undefined });
    const ids = Array.from({ length: 20 }, (_, i) => `usr-${i + 1}`);
    const keys = await Promise.all(ids.map((u, i) => visit(insights, projectId, u, shared, at(((i * 7) % 20) * MIN))));
    expect(new Set(keys).size).toBe(1);
    const docs = await users.find({ projectId }).toArray();
    expect(docs.map((d) => d.userId).sort()).toEqual([...ids].sort());
    for (const doc of docs) {
      expect(Object.values(doc.envs)).toHaveLength(1);
      expect(JSON.stringify(doc)).not.toMatch(new RegExp(ids.filter((u) => u !== doc.userId).map((u) => `"${u}"`).join('|')));
    }
    // Each user's own first visit counts, not the first visit of anyone in the same browser build.
    const index = ids.indexOf('usr-3');
    expect(Object.values(docs.find((d) => d.userId === 'usr-3')!.envs)[0].firstSeen).toEqual(at(((index * 7) % 20) * MIN));
  });

  it('keeps projects apart: the same handle in two projects is two environments', async () => {
    const [p1, p2] = [newProject(), newProject()];
    await visit(insights, p1, 'usr-1', client(), T0);
    await visit(insights, p2, 'usr-1', client(), T0);
    expect(await users.countDocuments({ userId: 'usr-1', 'envs.ceh-mac.key': 'ceh-mac', projectId: { $in: [p1, p2] } })).toBe(2);
    const other = await insights.forAppend(appendInput(newProject(), { now: at(DAY) }));
    expect(other.detection.clientEnvIds).toEqual([]);
  });

  it('keeps a handle that reads as a path or an operator as it is', async () => {
    const projectId = newProject();
    const odd = client({ clientEnvHandle: 'a.b$c' });
    expect(await visit(insights, projectId, 'usr-1', odd, T0)).toBe('a.b$c');
    const doc = await userDoc(projectId);
    expect(Object.values(doc!.envs).map((e) => e.key)).toEqual(['a.b$c']);
    const later = await insights.forAppend(appendInput(projectId, { client: odd, now: at(DAY) }));
    expect(later.detection.clientEnvIds).toEqual(['a.b$c']);
    expect(later.detection.tags).toContainEqual({ category: 'clientEnv', name: 'known-env' });
  });

  it('keeps the clientEnvLimit most recently seen environments of a user, evicting the least recently seen', async () => {
    const projectId = newProject();
    const capped = createInsightsService(createInsightsStores(store.db, { clientEnvLimit: 3 }));
    const visitAt = (h: string, offset: number) => visit(capped, projectId, 'usr-1', client({ clientEnvHandle: h }), at(offset));
    await visitAt('ceh-a', 0);
    await visitAt('ceh-b', 1000);
    await visitAt('ceh-c', 2000);
    await visitAt('ceh-a', 3000); // seen again: now ceh-b is the least recently seen
    await visitAt('ceh-d', 4000);
    let doc = await userDoc(projectId);
    expect(Object.keys(doc!.envs).sort()).toEqual(['ceh-a', 'ceh-c', 'ceh-d']);
    expect(Object.keys(doc!.envDetails).sort()).toEqual(['ceh-a', 'ceh-c', 'ceh-d']);
    await visitAt('ceh-e', 5000);
    doc = await userDoc(projectId);
    expect(Object.keys(doc!.envs).sort()).toEqual(['ceh-a', 'ceh-d', 'ceh-e']);
    const result = await capped.forAppend(appendInput(projectId, { client: client({ clientEnvHandle: 'ceh-a' }), now: at(DAY) }));
    expect(result.detection.clientEnvIds).toEqual(['ceh-e', 'ceh-d', 'ceh-a']);
    // An evicted environment seen again is new again.
    const back = await capped.forAppend(appendInput(projectId, { client: client({ clientEnvHandle: 'ceh-b' }), now: at(2 * DAY) }));
    expect(back.detection.tags).toContainEqual({ category: 'clientEnv', name: 'new-env' });
    expect(Object.keys((await userDoc(projectId))!.envs)).toHaveLength(3);
    await capped.close();
  });
});

describe('store operations', () => {
  /** The insights service on a second connection whose commands are counted (driver command monitoring). */
  async function monitored(): Promise<{ service: InsightsRuntime; commands: string[]; close(): Promise<void> }> {
    const client = new MongoClient(uri, { monitorCommands: true });
    await client.connect();
    const commands: string[] = [];
    const data = new Set(['find', 'findAndModify', 'insert', 'update', 'delete', 'aggregate', 'count']);
    client.on('commandStarted', (e: CommandStartedEvent) => {
      if (data.has(e.commandName)) commands.push(e.commandName);
    });
    // A long batching delay: only flush() writes, so the count does not depend on timing.
    const service = createInsightsService(createInsightsStores(client.db(dbName)), { eventBatching: { delayMs: 3_600_000 } });
    return { service, commands, close: async () => (await service.close(), await client.close()) };
  }

  it('B4: forLogin is one findAndModify; login-started is written later, in a batch with others', async () => {
    const projectId = newProject();
    const m = await monitored();
    await visit(m.service, projectId, 'usr-1', client({ clientEnvHandle: 'ceh-phone' }), at(-DAY));
    m.commands.length = 0;
    const result = await m.service.forLogin({ projectId, userId: 'usr-1', client: client(), strategy: 'standard', passkeys: [passkey()], now: T0 });
    expect(result.detection.clientEnvIds).toEqual(['ceh-phone']);
    await m.service.recordEvent({ projectId, userId: 'usr-1', type: 'login-started', processId: 'p1', client: client(), at: T0 });
    expect(m.commands).toEqual(['findAndModify']);
    // B5's event joins the same batch.
    await m.service.recordEvent({ projectId, userId: 'usr-1', type: 'login-succeeded', processId: 'p1', credentialId: 'cre-1', client: client(), at: at(1000) });
    expect(m.commands).toEqual(['findAndModify']);
    await m.service.flush();
    expect(m.commands).toEqual(['findAndModify', 'insert']);
    // With the event of the visit a day before.
    expect((await eventsOf(projectId)).map((e) => e.type).sort()).toEqual(['login-started', 'login-succeeded', 'login-succeeded']);
    await m.close();
  });

  it('B2: forAppend is one findAndModify and one update of the decision\'s history entry, the start included', async () => {
    const projectId = newProject();
    const m = await monitored();
    await m.service.forAppend(appendInput(projectId, { started: { processId: 'p1' } }));
    expect(m.commands).toEqual(['findAndModify', 'update']);
    expect((await userDoc(projectId))!.history.map((h) => [h.type, h.processId])).toEqual([['append-decided', undefined], ['append-started', 'p1']]);
    await m.service.flush();
    expect((await eventsOf(projectId)).map((e) => [e.type, e.processId, e.client?.clientEnvKey]).sort()).toEqual([['append-decided', undefined, 'ceh-mac'], ['append-started', 'p1', 'ceh-mac']]);
    await m.close();
  });

  it('B3: the outcome with the visit is one findAndModify (history and environment together)', async () => {
    const projectId = newProject();
    const m = await monitored();
    await m.service.recordEvent({ projectId, userId: 'usr-1', type: 'append-succeeded', processId: 'p1', credentialId: 'cre-1', client: client({ clientEnvHandle: 'ceh-new' }), at: T0, recordVisit: true });
    expect(m.commands).toEqual(['findAndModify']);
    const doc = await userDoc(projectId);
    expect(doc!.history.map((h) => h.type)).toEqual(['append-succeeded']);
    expect(Object.values(doc!.envs)).toEqual([{ key: 'ceh-new', firstSeen: T0, lastSeen: T0 }]);
    expect(doc!.envDetails['ceh-new']).toMatchObject({ userAgent: CHROME_MAC, browser: { name: 'Chrome' } });
    // Without recordVisit an append event updates history only.
    m.commands.length = 0;
    await m.service.recordEvent({ projectId, userId: 'usr-1', type: 'append-failed', processId: 'p2', reason: 'x', client: client({ clientEnvHandle: 'ceh-other' }), at: at(MIN) });
    expect(m.commands).toEqual(['update']);
    expect(Object.keys((await userDoc(projectId))!.envs)).toEqual(['ceh-new']);
    await m.close();
  });
});

describe('forAppend against the store', () => {
  it('a first append: allowed, new environment, decision recorded', async () => {
    const projectId = newProject();
    const result = await insights.forAppend(appendInput(projectId));
    expect(result.appendAllow).toBe(true);
    expect(result.decision).toMatchObject({ tag: 'user-no-pks', variant: 'default', isRestrictedBrowser: false });
    expect(result.detection.tags).toContainEqual({ category: 'clientEnv', name: 'new-env' });
    const recorded = await eventsOf(projectId);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ type: 'append-decided', userId: 'usr-1', situation: 'default', at: T0, decision: { appendAllow: true, tag: 'user-no-pks' } });
    expect(recorded[0].client).toEqual({ userAgent: CHROME_MAC, remoteAddress: '::ffff:10.0.0.7', clientEnvKey: 'ceh-mac', restrictedBrowser: false });
  });

  it('clientEnvIds lists the user\'s environments; known-env once seen before this request', async () => {
    const projectId = newProject();
    await visit(insights, projectId, 'usr-1', client({ clientEnvHandle: 'ceh-phone' }), at(-DAY));
    await visit(insights, projectId, 'usr-1', client(), T0);
    await visit(insights, projectId, 'usr-2', client({ clientEnvHandle: 'ceh-other' }), T0);
    // Recorded in the same request: still a new environment.
    const first = await insights.forAppend(appendInput(projectId));
    expect(first.detection.clientEnvIds).toEqual(['ceh-mac', 'ceh-phone']);
    expect(first.detection.tags).toContainEqual({ category: 'clientEnv', name: 'new-env' });
    const later = await insights.forAppend(appendInput(projectId, { situation: 'after-error', now: at(2 * MIN) }));
    expect(later.detection.tags).toContainEqual({ category: 'clientEnv', name: 'known-env' });
  });

  it('another user in the same environment does not make it known for this user', async () => {
    const projectId = newProject();
    await visit(insights, projectId, 'usr-2', client(), at(-DAY));
    const result = await insights.forAppend(appendInput(projectId));
    expect(result.detection.tags).toContainEqual({ category: 'clientEnv', name: 'new-env' });
  });

  it('refuses when the user already has a passkey from this environment', async () => {
    const projectId = newProject();
    const result = await insights.forAppend(appendInput(projectId, { passkeys: [passkey()] }));
    expect(result).toMatchObject({ appendAllow: false, decision: { tag: 'user-env-pk-exists', variant: 'none' } });
    expect(result.detection).toMatchObject({ credentialIds: ['cre-1'], passwordManagerIds: ['fbfc3007-154e-4ecc-8c0b-6e020557d7bd'] });
    expect(result.detection.tags).toEqual(expect.arrayContaining([{ category: 'passkey', name: 'env-has-passkey' }, { category: 'clientEnv', name: 'known-env' }]));
  });

  it('history: a start without outcome is pending, then an abandoned offer cools its situation down for 7 days', async () => {
    const projectId = newProject();
    await insights.forAppend(appendInput(projectId));
    await insights.recordEvent({ projectId, userId: 'usr-1', type: 'append-started', situation: 'default', processId: 'p1', client: client(), at: at(1000) });

    const pending = await insights.forAppend(appendInput(projectId, { now: at(5 * MIN) }));
    expect(pending.appendAllow).toBe(true);
    expect(pending.detection.historyData).toMatchObject({ defaultCount: 1, defaultCooldown: false });

    const cooling = await insights.forAppend(appendInput(projectId, { now: at(DAY) }));
    expect(cooling).toMatchObject({ appendAllow: false, decision: { tag: 'default-cooldown', variant: 'none' } });
    expect(cooling.detection.tags).toContainEqual({ category: 'history', name: 'default-cooldown' });

    // Another situation is not cooling down.
    const afterError = await insights.forAppend(appendInput(projectId, { situation: 'after-error', now: at(DAY) }));
    expect(afterError).toMatchObject({ appendAllow: true, decision: { variant: 'after-error' } });

    const over = await insights.forAppend(appendInput(projectId, { now: at(7 * DAY + 2000) }));
    expect(over.appendAllow).toBe(true);
    expect(over.detection.historyData).toMatchObject({ defaultCount: 1, defaultCooldown: false });
  });

  it('history: a failed append cools down at once; a succeeded one never', async () => {
    const projectId = newProject();
    await insights.recordEvent({ projectId, userId: 'usr-1', type: 'append-started', situation: 'after-hybrid', processId: 'p1', at: T0 });
    await insights.recordEvent({ projectId, userId: 'usr-1', type: 'append-failed', processId: 'p1', reason: 'origin-mismatch', at: at(1000) });
    await insights.recordEvent({ projectId, userId: 'usr-2', type: 'append-started', situation: 'after-hybrid', processId: 'p2', at: T0 });
    await insights.recordEvent({ projectId, userId: 'usr-2', type: 'append-succeeded', processId: 'p2', credentialId: 'cre-9', at: at(1000) });

    const failed = await insights.forAppend(appendInput(projectId, { situation: 'after-hybrid', now: at(2000) }));
    expect(failed).toMatchObject({ appendAllow: false, decision: { tag: 'after-hybrid-cooldown' } });
    expect(failed.detection.historyData).toMatchObject({ afterHybridCount: 1, afterHybridCooldown: true });

    const succeeded = await insights.forAppend(appendInput(projectId, { userId: 'usr-2', situation: 'after-hybrid', passkeys: [passkey({ id: 'cre-9', clientEnvKey: 'ceh-other' })], now: at(DAY) }));
    expect(succeeded.appendAllow).toBe(true);
    expect(succeeded.detection.historyData).toMatchObject({ afterHybridCount: 1, afterHybridCooldown: false });
  });

  it('history: a configurable cooldown (1 day)', async () => {
    const projectId = newProject();
    const short = createInsightsService(createInsightsStores(store.db), { cooldownDays: 1 });
    await short.recordEvent({ projectId, userId: 'usr-1', type: 'append-started', situation: 'default', at: T0 });
    expect((await short.forAppend(appendInput(projectId, { now: at(DAY / 2) }))).appendAllow).toBe(false);
    expect((await short.forAppend(appendInput(projectId, { now: at(DAY + 1000) }))).appendAllow).toBe(true);
  });

  it('history: auto appends are counted and cool auto down when they fail', async () => {
    const projectId = newProject();
    const decided = await insights.forAppend(appendInput(projectId, { flags: { ...NO_FLAGS, askForAutoAppend: true } }));
    expect(decided.decision.auto).toBe(true);
    await insights.recordEvent({ projectId, userId: 'usr-1', type: 'append-started', situation: 'default', processId: 'p1', at: at(500) });
    await insights.recordEvent({ projectId, userId: 'usr-1', type: 'append-failed', processId: 'p1', reason: 'not-allowed-error', at: at(9000) });

    const next = await insights.forAppend(appendInput(projectId, { situation: 'after-error', flags: { ...NO_FLAGS, askForAutoAppend: true }, now: at(DAY) }));
    expect(next.detection.historyData).toMatchObject({ autoCount: 1, autoCooldown: true, defaultCooldown: true });
    expect(next).toMatchObject({ appendAllow: true, decision: { variant: 'after-error', auto: false, customData: { autoSkipped: 'auto-cooldown' } } });
  });

  it('restricted browser: refused without askForInAppAppend; an unsuccessful in-app attempt cools in-app down', async () => {
    const projectId = newProject();
    const inApp = client({ userAgent: INSTAGRAM_IOS, clientEnvHandle: 'ceh-insta' });
    const refused = await insights.forAppend(appendInput(projectId, { client: inApp }));
    expect(refused).toMatchObject({ appendAllow: false, decision: { tag: 'env-restricted-browser', isRestrictedBrowser: true, customData: { restrictedBrowserReason: 'in-app:Instagram' } } });
    expect(refused.detection.tags).toContainEqual({ category: 'support', name: 'restricted-browser' });

    const allowFlags = { ...NO_FLAGS, askForInAppAppend: 'allow' };
    expect((await insights.forAppend(appendInput(projectId, { client: inApp, flags: allowFlags, situation: 'after-error' }))).appendAllow).toBe(true);
    await insights.recordEvent({ projectId, userId: 'usr-1', type: 'append-started', situation: 'after-error', processId: 'p1', client: inApp, at: at(1000) });
    await insights.recordEvent({ projectId, userId: 'usr-1', type: 'append-failed', processId: 'p1', at: at(2000) });

    const cooling = await insights.forAppend(appendInput(projectId, { client: inApp, flags: allowFlags, situation: 'after-hybrid', now: at(DAY) }));
    expect(cooling.detection.historyData.inAppCooldown).toBe(true);
    expect(cooling).toMatchObject({ appendAllow: false, decision: { tag: 'in-app-cooldown' } });
    // The same user in a normal browser is not affected by the in-app cooldown.
    expect((await insights.forAppend(appendInput(projectId, { situation: 'after-hybrid', now: at(DAY) }))).appendAllow).toBe(true);
  });

  it('keeps users apart: one user\'s history does not cool another\'s', async () => {
    const projectId = newProject();
    await insights.recordEvent({ projectId, userId: 'usr-1', type: 'append-started', situation: 'default', at: T0 });
    const other = await insights.forAppend(appendInput(projectId, { userId: 'usr-2', now: at(DAY) }));
    expect(other.appendAllow).toBe(true);
    expect(other.detection.historyData.defaultCount).toBe(0);
  });
});

describe('forLogin against the store', () => {
  it('no passkeys: login not allowed; passkey here: preferImmediatelyAvailable; only elsewhere: CDA candidate', async () => {
    const projectId = newProject();
    const base = { projectId, userId: 'usr-1', client: client(), strategy: 'standard' as const, now: T0 };
    expect(await insights.forLogin({ ...base, passkeys: [] })).toMatchObject({ loginAllow: false, decision: { tag: 'user-no-pks', isCDACandidate: false, experiments: [] } });

    const here = await insights.forLogin({ ...base, passkeys: [passkey()] });
    expect(here).toMatchObject({ loginAllow: true, decision: { tag: 'user-platform-pk-high-confidence', preferImmediatelyAvailable: true, isCDACandidate: false } });
    expect(here.detection.credentialIds).toEqual(['cre-1']);

    const android = passkey({ id: 'cre-2', clientEnvKey: 'ceh-pixel', sourceOS: 'Android', aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4' });
    expect(await insights.forLogin({ ...base, passkeys: [android] })).toMatchObject({
      decision: { tag: 'user-cross-platform-pk-high-confidence', preferImmediatelyAvailable: false, isCDACandidate: true },
    });
    // forLogin records no event.
    expect(await eventsOf(projectId)).toHaveLength(0);
  });
});

describe('recordEvent', () => {
  it('inserts the event with an audit view of the client (no fingerprint) and no null fields', async () => {
    const projectId = newProject();
    await insights.recordEvent({ projectId, userId: 'usr-1', type: 'login-failed', reason: 'x'.repeat(500), client: client({ userAgent: INSTAGRAM_IOS }), at: T0 });
    await insights.recordEvent({ projectId, type: 'mediation-started', at: T0 });
    const docs = (await eventsOf(projectId)).sort((a, b) => a.type.localeCompare(b.type));
    expect(docs).toHaveLength(2);
    const [login, mediation] = docs;
    expect(login.reason).toHaveLength(200);
    expect(login.client).toEqual({ userAgent: INSTAGRAM_IOS, remoteAddress: '::ffff:10.0.0.7', clientEnvKey: 'ceh-mac', restrictedBrowser: true });
    expect(JSON.stringify(login)).not.toContain('fp-secret');
    expect(Object.keys(mediation).sort()).toEqual(['_id', 'at', 'expiresAt', 'projectId', 'type']);
  });

  it('rejects an invalid date', async () => {
    await expect(insights.recordEvent({ projectId: newProject(), type: 'login-started', at: new Date('nope') })).rejects.toThrow(TypeError);
  });
});

describe('forgetUser', () => {
  it('removes the user\'s events and environments, leaves other users and other projects alone', async () => {
    const [projectId, otherProject] = [newProject(), newProject()];
    await visit(insights, projectId, 'usr-1', client(), T0);
    await visit(insights, projectId, 'usr-1', client({ clientEnvHandle: 'ceh-shared' }), T0);
    await visit(insights, projectId, 'usr-2', client({ clientEnvHandle: 'ceh-shared' }), T0);
    await visit(insights, otherProject, 'usr-1', client(), T0);
    await insights.recordEvent({ projectId, userId: 'usr-1', type: 'append-started', at: T0 });
    await insights.recordEvent({ projectId, userId: 'usr-2', type: 'append-started', at: T0 });
    await insights.recordEvent({ projectId: otherProject, userId: 'usr-1', type: 'append-started', at: T0 });
    // Still queued when the user is forgotten: must not be written after the deletion.
    await insights.recordEvent({ projectId, userId: 'usr-1', type: 'login-started', at: T0 });

    await insights.forgetUser(projectId, 'usr-1');
    await insights.flush();

    expect(await events.countDocuments({ projectId, userId: 'usr-1' })).toBe(0);
    // Each user's visit (an event too) and append-started.
    expect(await events.countDocuments({ projectId, userId: 'usr-2' })).toBe(2);
    expect(await events.countDocuments({ projectId: otherProject, userId: 'usr-1' })).toBe(2);
    expect(await userDoc(projectId, 'usr-1')).toBeNull();
    const remaining = await users.find({ projectId }).toArray();
    expect(remaining.map((d) => d.userId)).toEqual(['usr-2']);
    expect(Object.keys(remaining[0].envs)).toEqual(['ceh-shared']);
    expect(remaining[0].history.map((h) => h.type)).toEqual(['append-started']);
    expect(Object.keys((await userDoc(otherProject, 'usr-1'))!.envs)).toEqual(['ceh-mac']);
    const after = await insights.forAppend(appendInput(projectId, { now: at(DAY) }));
    expect(after.detection.clientEnvIds).toEqual([]);
    expect(after.detection.historyData.defaultCount).toBe(0);
  });

  it('is a no-op for an unknown user', async () => {
    await expect(insights.forgetUser(newProject(), 'usr-404')).resolves.toBeUndefined();
  });
});

describe('history kept per user', () => {
  it('keeps the last historyLimit append events in the user\'s document; history is computed from them', async () => {
    const projectId = newProject();
    const short = createInsightsService(createInsightsStores(store.db, { historyLimit: 4 }));
    for (let i = 0; i < 6; i++) await short.recordEvent({ projectId, userId: 'usr-1', type: 'append-started', situation: 'default', processId: `p${i}`, at: at(i * 1000) });
    // Not append events: the audit trail only.
    await short.recordEvent({ projectId, userId: 'usr-1', type: 'login-started', at: at(7000) });
    const doc = await userDoc(projectId);
    expect(doc!.history.map((h) => h.processId)).toEqual(['p2', 'p3', 'p4', 'p5']);
    const result = await short.forAppend(appendInput(projectId, { now: at(DAY) }));
    expect(result.detection.historyData).toMatchObject({ defaultCount: 4, defaultCooldown: true });
    await short.close();
    expect(await events.countDocuments({ projectId, type: 'append-started' })).toBe(6);
  });
});

describe('ceremony event store', () => {
  it('a batch written again (its acknowledgement lost) stores each event once', async () => {
    const projectId = newProject();
    const store2 = createCeremonyEventStore(store.db);
    const batch: EventDoc[] = [1, 2, 3].map((i) => ({ projectId, type: 'login-started', processId: `p${i}`, at: at(i), expiresAt: at(DAY) }));
    await store2.insertMany(batch);
    await store2.insertMany(batch);
    expect(await events.countDocuments({ projectId })).toBe(3);
  });
});

describe('event retention', () => {
  it('sets expiresAt from the project\'s retention: its setting, the default for a project that is gone, retried while unreachable', async () => {
    const [p30, gone, flaky, plain] = [newProject(), newProject(), newProject(), newProject()];
    let flakyAsks = 0;
    const sleeps: number[] = [];
    const retained = createInsightsService(createInsightsStores(store.db), {
      eventRetentionDays: async (projectId) => {
        if (projectId === p30) return 30;
        if (projectId === gone) throw notFound('project_not_found', 'gone');
        if (projectId === flaky && ++flakyAsks === 1) throw new Error('connect unreachable');
        return 7;
      },
      eventBatching: { sleep: async (ms) => void sleeps.push(ms) },
    });
    for (const projectId of [p30, gone, flaky, plain]) await retained.recordEvent({ projectId, userId: 'usr-1', type: 'login-started', at: T0 });
    await retained.flush();
    const expiry = async (projectId: string) => (await events.findOne({ projectId }))?.expiresAt;
    expect(await expiry(p30)).toEqual(at(30 * DAY));
    expect(await expiry(gone)).toEqual(at(90 * DAY));
    expect(await expiry(flaky)).toEqual(at(7 * DAY));
    expect(await expiry(plain)).toEqual(at(7 * DAY));
    // The unreachable lookup was retried after a pause, and no event was written twice.
    expect(sleeps).toHaveLength(1);
    expect(await events.countDocuments({ projectId: { $in: [p30, gone, flaky, plain] } })).toBe(4);
    await retained.close();
  });

  it('defaults to 90 days', async () => {
    const projectId = newProject();
    await insights.recordEvent({ projectId, type: 'mediation-started', at: T0 });
    expect((await eventsOf(projectId))[0].expiresAt).toEqual(at(90 * DAY));
  });
});

describe('options', () => {
  it.each([{ cooldownDays: -1 }, { cooldownDays: Number.NaN }])('rejects %j', (opts) => {
    expect(() => createInsightsService(createInsightsStores(store.db), opts)).toThrow(RangeError);
  });
  it.each([{ historyLimit: 0 }, { clientEnvLimit: 1.5 }])('rejects the store limit %j', (limits) => {
    expect(() => createInsightsStores(store.db, limits)).toThrow(RangeError);
  });
});
