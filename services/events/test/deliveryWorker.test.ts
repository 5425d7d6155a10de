/**
 * Publishing and delivering against the store (embedded, or MONGODB_URI): idempotent publishing,
 * leases, retries on the schedule, the bounded attempt count and the rules that disable an endpoint.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/kit/openTestDatabase.js';
import { createWebhookEndpoint, MAX_ENDPOINTS_PER_PROJECT, type EndpointDeps } from '../src/domain/createWebhookEndpoint.js';
import { deliverDue, type DeliveryWorkerDeps } from '../src/domain/deliverDue.js';
import { deleteWebhookEndpoint } from '../src/domain/manageWebhookEndpoints.js';
import type { DeliveryRecord, PostResult } from '../src/domain/ports.js';
import { publishEvents, type PublishedEvent } from '../src/domain/publishEvents.js';
import { rotateSigningSecret } from '../src/domain/rotateSigningSecret.js';
import { deliveryIndexes, mongoDeliveryStore } from '../src/store/webhookDeliveries.js';
import { mongoWebhookEndpointStore, webhookEndpointIndexes } from '../src/store/webhookEndpoints.js';
import { mongoWebhookProjectSettingsStore } from '../src/store/webhookProjectSettings.js';

let db: TestDatabase;
let clock = Date.now();
const now = () => new Date(clock);
const masterKey = Buffer.alloc(32, 3);
let projectSeq = 0;
let project = '';

interface Posted {
  url: string;
  headers: Record<string, string>;
  body: string;
}
let posted: Posted[] = [];
let answers: PostResult[] = [];

function deps() {
  const endpoints = mongoWebhookEndpointStore(db.store.db);
  const deliveries = mongoDeliveryStore(db.store.db);
  const settings = mongoWebhookProjectSettingsStore(db.store.db);
  const endpointDeps: EndpointDeps = { endpoints, masterKey, allowPrivateAddresses: true, settings, resolveHost: async () => ['127.0.0.1'], subscriptionCacheMs: 0, now };
  const worker = (owner = 'w1'): DeliveryWorkerDeps => ({
    endpoints,
    deliveries,
    masterKey,
    allowPrivateAddresses: true,
    settings,
    retryDelaysSeconds: [5, 300],
    owner,
    leaseMs: 60_000,
    now,
    post: async (url, headers, body) => {
      posted.push({ url, headers, body });
      return answers.shift() ?? { status: 200 };
    },
  });
  return { endpoints, deliveries, endpointDeps, worker, now };
}

const event = (over: Partial<PublishedEvent> = {}): PublishedEvent => ({
  id: `evt-${Math.floor(Math.random() * 1e12)}`,
  projectId: project,
  type: 'user.created',
  occurredAt: now(),
  data: { userID: 'usr-1' },
  ip: '',
  os: '',
  browser: '',
  ...over,
});

async function endpoint(subscribedEvents = ['user.created']) {
  const d = deps();
  return createWebhookEndpoint(d.endpointDeps, { projectId: project, url: 'http://127.0.0.1:9/hook', basicAuthUsername: '', basicAuthPassword: '', subscribedEvents, customHeaders: {} });
}

const delivery = (id: string) => db.store.db.collection<DeliveryRecord>('webhook_deliveries').findOne({ _id: id });

beforeAll(async () => {
  db = await openTestDatabase('events_test', { ...webhookEndpointIndexes, ...deliveryIndexes });
});
afterAll(() => db.close());
beforeEach(async () => {
  // The worker claims due deliveries of every project: each test starts with none left by another.
  await db.store.db.collection('webhook_deliveries').deleteMany({});
  project = `pro-${++projectSeq}`;
  posted = [];
  answers = [];
});

describe('publishing', () => {
  it('makes one delivery per subscribed endpoint, and none again when the event is published twice', async () => {
    const a = await endpoint(['user.created']);
    await endpoint(['user.deleted']);
    const e = event();
    const d = deps();
    expect(await publishEvents(d, [e])).toBe(1);
    expect(await publishEvents(d, [e])).toBe(0);
    expect(await delivery(`${e.id}:${a.record._id}`)).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('stores nothing for a project without endpoints', async () => {
    expect(await publishEvents(deps(), [event()])).toBe(0);
    expect(await db.store.db.collection('webhook_deliveries').countDocuments({ projectId: project })).toBe(0);
  });

  it(`keeps at most ${MAX_ENDPOINTS_PER_PROJECT} endpoints per project, and room again after a delete`, async () => {
    const made = await Promise.all(Array.from({ length: MAX_ENDPOINTS_PER_PROJECT + 3 }, () => endpoint().then((r) => r.record._id, (err: Error & { type?: string }) => err.type)));
    expect(made.filter((m) => m?.startsWith('whe-'))).toHaveLength(MAX_ENDPOINTS_PER_PROJECT);
    expect(made.filter((m) => m === 'webhook_endpoint_limit_reached')).toHaveLength(3);
    const d = deps();
    await deleteWebhookEndpoint({ ...d, now }, project, made.find((m) => m?.startsWith('whe-'))!);
    await expect(endpoint()).resolves.toBeTruthy();
  });
});

describe('delivering', () => {
  it('posts a signed delivery once, and a second worker finds nothing to claim while the lease runs', async () => {
    const { record, signingSecret } = await endpoint();
    const d = deps();
    const e = event();
    await publishEvents(d, [e]);
    const [claimed] = await d.deliveries.claimDue(now(), 'other', new Date(clock + 60_000), 10);
    expect(claimed?._id).toBe(`${e.id}:${record._id}`);
    expect(await deliverDue(d.worker('w1'))).toBe(false);
    expect(posted).toHaveLength(0);
    // The lease runs out: the delivery is taken again (at least once).
    clock += 61_000;
    expect(await deliverDue(d.worker('w1'))).toBe(true);
    expect(posted).toHaveLength(1);
    expect(new Webhook(signingSecret).verify(posted[0]!.body, posted[0]!.headers)).toMatchObject({ type: 'user.created', data: { userID: 'usr-1' } });
    expect(await delivery(claimed!._id)).toMatchObject({ status: 'delivered', attempts: 1 });
    // The first holder's late outcome is not written over the delivered one.
    expect(await d.deliveries.recordAttempts([{ record: claimed!, attempt: { at: now(), status: 500, durationMs: 1 }, outcome: { status: 'failed', finishedAt: now() } }], 'other')).toBe(0);
  });

  it('claims in batches: workers racing over the same due deliveries never attempt one twice', async () => {
    const { record } = await endpoint();
    const d = deps();
    const events = Array.from({ length: 60 }, () => event());
    await publishEvents(d, events);
    // Four replicas' workers (and two lanes of each) claim batches of 7 at once until nothing is due.
    const workers = ['r1', 'r2', 'r3', 'r4'].map((owner) => ({ ...d.worker(owner), batchSize: 7 }));
    const lane = async (w: DeliveryWorkerDeps) => {
      while (await deliverDue(w));
    };
    await Promise.all(workers.flatMap((w) => [lane(w), lane(w)]));
    const ids = posted.map((p) => p.headers['webhook-id']);
    expect(ids).toHaveLength(events.length);
    expect(new Set(ids).size).toBe(events.length);
    const stored = await db.store.db.collection<DeliveryRecord>('webhook_deliveries').find({ endpointId: record._id }).toArray();
    expect(stored.every((s) => s.status === 'delivered' && s.attempts === 1 && s.leaseOwner === undefined)).toBe(true);
  });

  it('signs with a rotated secret from the next batch on, though the old secret was opened (and cached) before', async () => {
    const { record, signingSecret } = await endpoint();
    const d = deps();
    await publishEvents(d, [event()]);
    expect(await deliverDue(d.worker())).toBe(true);
    expect(() => new Webhook(signingSecret).verify(posted[0]!.body, posted[0]!.headers)).not.toThrow();
    // A rotation without overlap: only the new secret may sign from now on.
    const rotated = await rotateSigningSecret(d.endpointDeps, { projectId: project, endpointId: record._id, overlapSeconds: 0 });
    await publishEvents(d, [event()]);
    expect(await deliverDue(d.worker())).toBe(true);
    expect(posted).toHaveLength(2);
    expect(() => new Webhook(rotated.signingSecret).verify(posted[1]!.body, posted[1]!.headers)).not.toThrow();
    expect(() => new Webhook(signingSecret).verify(posted[1]!.body, posted[1]!.headers)).toThrow();
  });

  it('retries on the schedule and fails the delivery after the last attempt', async () => {
    const { record } = await endpoint();
    const d = deps();
    const e = event();
    await publishEvents(d, [e]);
    const id = `${e.id}:${record._id}`;
    answers = [{ status: 500 }, { status: 0, error: 'timeout' }, { status: 503 }];
    expect(await deliverDue(d.worker())).toBe(true);
    expect(await delivery(id)).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: new Date(clock + 5000) });
    // Not yet due.
    expect(await deliverDue(d.worker())).toBe(false);
    clock += 5000;
    expect(await deliverDue(d.worker())).toBe(true);
    expect(await delivery(id)).toMatchObject({ status: 'pending', attempts: 2, nextAttemptAt: new Date(clock + 300_000) });
    clock += 300_000;
    expect(await deliverDue(d.worker())).toBe(true);
    const last = await delivery(id);
    expect(last).toMatchObject({ status: 'failed', attempts: 3 });
    expect(last!.log.map((l) => [l.status, l.error])).toEqual([[500, undefined], [0, 'timeout'], [503, undefined]]);
    expect(new Set(posted.map((p) => p.headers['webhook-id'])).size).toBe(1);
  });

  it('disables an endpoint that answers 410, and fails its deliveries', async () => {
    const { record } = await endpoint();
    const d = deps();
    const [e1, e2] = [event(), event()];
    await publishEvents(d, [e1, e2]);
    answers = [{ status: 410 }];
    await deliverDue(d.worker());
    expect(await d.endpoints.find(project, record._id)).toMatchObject({ enabled: false, disabledReason: 'gone' });
    await deliverDue(d.worker());
    expect(posted).toHaveLength(1);
    expect((await db.store.db.collection('webhook_deliveries').find({ endpointId: record._id }).toArray()).map((x) => x.status)).toEqual(['failed', 'failed']);
  });

  it('disables an endpoint failing without a success for a day, and a success resets the count', async () => {
    const { record } = await endpoint();
    const d = deps();
    answers = [{ status: 500 }];
    await publishEvents(d, [event()]);
    await deliverDue(d.worker());
    const failingSince = (await d.endpoints.find(project, record._id))!.failingSince!;
    expect(failingSince).toEqual(now());
    clock += 5000;
    await deliverDue(d.worker());
    expect(await d.endpoints.find(project, record._id)).toMatchObject({ enabled: true });
    expect((await d.endpoints.find(project, record._id))!.failingSince).toBeUndefined();
    answers = [{ status: 500 }];
    await publishEvents(d, [event()]);
    await deliverDue(d.worker());
    clock += 24 * 3600 * 1000 + 1;
    answers = [{ status: 500 }];
    await publishEvents(d, [event()]);
    await deliverDue(d.worker());
    expect(await d.endpoints.find(project, record._id)).toMatchObject({ enabled: false, disabledReason: 'failing' });
  });
});
