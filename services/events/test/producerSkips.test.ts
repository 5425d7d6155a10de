/**
 * A project without endpoints pays nothing, and no acknowledged change loses its event: a
 * producer's outbox (services/runtime/outbox.ts, with its subscription check) against the events
 * service's answer (GetSubscribedEventTypes, called in process) and its endpoint create, on the
 * store. The outbox's store operations are counted from the driver's command events.
 */
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/kit/openTestDatabase.js';
import { createLogger } from '../../runtime/logger.js';
import { outboxIndexes, startOutboxRelay, type OutboxRecord, type OutboxRelay } from '../../runtime/outbox.js';
import { createSubscriptionCheck } from '../../runtime/subscribedTypesCache.js';
import { createWebhookEndpoint, type EndpointDeps } from '../src/domain/createWebhookEndpoint.js';
import { getSubscribedEventTypes, PRODUCER_MARGIN_MS } from '../src/domain/subscribedEventTypes.js';
import { mongoWebhookEndpointStore, webhookEndpointIndexes } from '../src/store/webhookEndpoints.js';
import { mongoWebhookProjectSettingsStore } from '../src/store/webhookProjectSettings.js';

const OUTBOX = 'test_outbox';
const CACHE_MS = 300;
let db: TestDatabase;
let monitored: MongoClient;
let outboxCommands: string[] = [];
let lookups = 0;
let relay: OutboxRelay;
let clock: number | null = null;
const now = () => (clock === null ? new Date() : new Date(clock));

function endpointDeps(sleep?: (ms: number) => Promise<void>): EndpointDeps {
  return { endpoints: mongoWebhookEndpointStore(db.store.db), masterKey: Buffer.alloc(32, 5), allowPrivateAddresses: true, settings: mongoWebhookProjectSettingsStore(db.store.db), resolveHost: async () => ['127.0.0.1'], subscriptionCacheMs: CACHE_MS, now, ...(sleep ? { sleep } : {}) };
}
const endpoint = (deps: EndpointDeps, projectId: string, subscribedEvents: string[]) =>
  createWebhookEndpoint(deps, { projectId, url: 'http://127.0.0.1:9/hook', basicAuthUsername: '', basicAuthPassword: '', subscribedEvents, customHeaders: {} });
const entriesOf = (projectId: string) => db.store.db.collection<OutboxRecord>(OUTBOX).find({ projectId }).toArray();
const userCreated = (projectId: string, userID: string) => ({ projectId, type: 'user.created', data: { userID } });

beforeAll(async () => {
  db = await openTestDatabase('producer_skips', { ...webhookEndpointIndexes, ...outboxIndexes(OUTBOX) });
  monitored = new MongoClient(db.uri, { monitorCommands: true });
  monitored.on('commandStarted', (e: CommandStartedEvent) => {
    if (e.command[e.commandName] === OUTBOX) outboxCommands.push(e.commandName);
  });
  await monitored.connect();
  const deps = endpointDeps();
  const subscriptions = createSubscriptionCheck(async (projectId) => {
    lookups += 1;
    return getSubscribedEventTypes(deps, projectId);
  });
  // No timer runs during the tests (an hour): every outbox command counted comes from a change.
  relay = startOutboxRelay(monitored.db(db.dbName), OUTBOX, { publish: async () => undefined, confirm: async () => true, logger: createLogger('producer-skips', 'silent'), now, intervalMs: 3_600_000, subscriptions });
  await new Promise((r) => setTimeout(r, 100));
});
afterAll(async () => {
  await relay.stop();
  await monitored.close();
  await db.close();
});

describe('a producer and the events service', () => {
  it('writes no outbox entry and makes no outbox store operation for a project without endpoints', async () => {
    outboxCommands = [];
    lookups = 0;
    let changes = 0;
    for (let i = 0; i < 20; i++) await relay.around(userCreated('pro-none', `usr-${i}`), async () => void (changes += 1));
    expect(changes).toBe(20);
    expect(outboxCommands).toEqual([]);
    expect(await entriesOf('pro-none')).toEqual([]);
    // One question per cache time, not per change.
    expect(lookups).toBeLessThanOrEqual(20 * 5 / CACHE_MS + 1);

    // A project subscribed to the type pays its two writes (prepared, then ready) per change.
    await endpoint(endpointDeps(async () => undefined), 'pro-some', ['user.created']);
    outboxCommands = [];
    await relay.around(userCreated('pro-some', 'usr-1'), async () => undefined);
    expect(outboxCommands.slice(0, 2)).toEqual(['insert', 'update']);
    expect(await entriesOf('pro-some')).toHaveLength(1);
    // Another type of that project is still skipped.
    outboxCommands = [];
    await relay.around({ projectId: 'pro-some', type: 'user.deleted', data: { userID: 'usr-1' } }, async () => undefined);
    expect(outboxCommands).toEqual([]);
  });

  it("records every change acknowledged after an endpoint's create answered, including one in flight across it", async () => {
    const project = 'pro-race';
    await relay.around(userCreated(project, 'usr-before'), async () => undefined);
    expect(await entriesOf(project)).toEqual([]);

    // A change that began while "nobody subscribes" held and ends after the create answered.
    let finishSlowChange: () => void = () => undefined;
    const slowChange = relay.around(userCreated(project, 'usr-slow'), () => new Promise<void>((resolve) => (finishSlowChange = resolve)));
    // Changes all along: each remembers when it was acknowledged.
    const acknowledged = new Map<string, number>();
    let running = true;
    const load = (async () => {
      for (let i = 0; running; i++) {
        await relay.around(userCreated(project, `usr-${i}`), async () => undefined);
        acknowledged.set(`usr-${i}`, Date.now());
        await new Promise((r) => setTimeout(r, 15));
      }
    })();
    const started = Date.now();
    await endpoint(endpointDeps(), project, ['user.created']);
    const answeredAt = Date.now();
    // Waited out every producer's "nobody subscribes" answer.
    expect(answeredAt - started).toBeGreaterThanOrEqual(CACHE_MS + PRODUCER_MARGIN_MS);
    finishSlowChange();
    await slowChange;
    await new Promise((r) => setTimeout(r, 100));
    running = false;
    await load;

    const recorded = new Set((await entriesOf(project)).map((e) => e.data.userID as string));
    const after = [...acknowledged].filter(([, at]) => at > answeredAt).map(([id]) => id);
    expect(after.length).toBeGreaterThan(0);
    for (const id of after) expect(recorded, `${id}, acknowledged after the create answered`).toContain(id);
    expect(recorded).toContain('usr-slow');
    // Written once the change was done: publishable at once (the relay may have sent it already).
    expect(['ready', 'sent']).toContain((await entriesOf(project)).find((e) => e.data.userID === 'usr-slow')?.state);
    // Skipping did happen before the endpoint existed.
    expect([...acknowledged].filter(([id]) => !recorded.has(id)).length).toBeGreaterThan(0);
  });

  it('does not make a create wait when an endpoint unchanged for longer than the cache time holds its types', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    clock = Date.now() - 60_000;
    await endpoint(endpointDeps(sleep), 'pro-old', ['user.created', 'user.deleted']);
    clock = null;
    expect(waits).toEqual([CACHE_MS + PRODUCER_MARGIN_MS]);
    await endpoint(endpointDeps(sleep), 'pro-old', ['user.deleted']);
    expect(waits).toHaveLength(1);
    // A type the older endpoint does not hold: waited for.
    await endpoint(endpointDeps(sleep), 'pro-old', ['user.created', 'passkey.created']);
    expect(waits).toHaveLength(2);
    // The endpoint created just now does not count as settled: a third one with its new type waits too.
    await endpoint(endpointDeps(sleep), 'pro-old', ['passkey.created']);
    expect(waits).toHaveLength(3);
  });
});
