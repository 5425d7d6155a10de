/**
 * The delivery worker's metrics: every attempt reports its outcome to the observer port (a fake
 * here), a success its lag, a disabling failure its reason; and the Prometheus observer the
 * events process uses exposes those series without project, endpoint or URL labels.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/kit/openTestDatabase.js';
import { createMetrics, webhookDeliveryObserver } from '../../runtime/metrics.js';
import { createWebhookEndpoint } from '../src/domain/createWebhookEndpoint.js';
import { deliverDue, type DeliveryWorkerDeps } from '../src/domain/deliverDue.js';
import { deleteWebhookEndpoint } from '../src/domain/manageWebhookEndpoints.js';
import { attemptOutcome, eventLagSeconds, type DeliveryObserver } from '../src/domain/observeDelivery.js';
import type { PostResult } from '../src/domain/ports.js';
import { publishEvents } from '../src/domain/publishEvents.js';
import { DISABLE_AFTER_FAILING_MS } from '../src/domain/retrySchedule.js';
import { deliveryIndexes, mongoDeliveryStore } from '../src/store/webhookDeliveries.js';
import { mongoWebhookEndpointStore, webhookEndpointIndexes } from '../src/store/webhookEndpoints.js';
import { mongoWebhookProjectSettingsStore } from '../src/store/webhookProjectSettings.js';

let db: TestDatabase;
let clock = Date.now();
const now = () => new Date(clock);
const masterKey = Buffer.alloc(32, 5);
let project = '';
let seq = 0;
let answer: PostResult = { status: 200 };
/** What the fake observer saw, in order. */
let seen: (string | number | null)[][] = [];
const observer: DeliveryObserver = {
  attempted: (outcome, seconds) => void seen.push(['attempted', outcome, seconds]),
  delivered: (lag) => void seen.push(['delivered', lag]),
  endpointDisabled: (reason) => void seen.push(['disabled', reason]),
};

const stores = () => ({ endpoints: mongoWebhookEndpointStore(db.store.db), deliveries: mongoDeliveryStore(db.store.db), settings: mongoWebhookProjectSettingsStore(db.store.db) });
const worker = (): DeliveryWorkerDeps => ({
  ...stores(),
  masterKey,
  allowPrivateAddresses: true,
  retryDelaysSeconds: [5, 300],
  owner: 'w1',
  leaseMs: 60_000,
  now,
  observer,
  post: async () => {
    // The request takes 1.5 s on the test's clock.
    clock += 1500;
    return answer;
  },
});
const endpoint = () =>
  createWebhookEndpoint(
    { ...stores(), masterKey, allowPrivateAddresses: true, resolveHost: async () => ['127.0.0.1'], subscriptionCacheMs: 0, now },
    { projectId: project, url: 'http://127.0.0.1:9/hook', basicAuthUsername: '', basicAuthPassword: '', subscribedEvents: ['user.created'], customHeaders: {} },
  );
/** Publishes an event that occurred `agoMs` before now. */
const publish = (agoMs = 0) =>
  publishEvents({ ...stores(), now }, [{ id: `evt-${++seq}`, projectId: project, type: 'user.created', occurredAt: new Date(clock - agoMs), data: { userID: 'usr-1' }, ip: '', os: '', browser: '' }]);

beforeAll(async () => {
  db = await openTestDatabase('events_metrics_test', { ...webhookEndpointIndexes, ...deliveryIndexes });
});
afterAll(() => db.close());
beforeEach(async () => {
  await db.store.db.collection('webhook_deliveries').deleteMany({});
  project = `pro-m${++seq}`;
  seen = [];
  answer = { status: 200 };
});

describe('attempt outcomes', () => {
  it('classifies every answer into the closed set', () => {
    expect(attemptOutcome({ status: 204 })).toBe('succeeded');
    expect(attemptOutcome({ status: 500 })).toBe('failed_http');
    expect(attemptOutcome({ status: 302 })).toBe('failed_http');
    expect(attemptOutcome({ status: 410 })).toBe('gone');
    expect(attemptOutcome({ status: 0, error: 'timeout' })).toBe('failed_network');
    expect(attemptOutcome({ status: 0, error: 'ECONNREFUSED' })).toBe('failed_network');
    expect(attemptOutcome({ status: 0, error: 'address_not_allowed' })).toBe('address_not_allowed');
  });

  it("reads the lag from the body's timestamp, and none from a body without one", () => {
    expect(eventLagSeconds(JSON.stringify({ timestamp: '2026-01-01T00:00:00.000Z' }), new Date('2026-01-01T00:00:02.500Z'))).toBe(2.5);
    expect(eventLagSeconds('{}', new Date())).toBeNull();
    expect(eventLagSeconds('not json', new Date())).toBeNull();
  });
});

describe('deliverDue reports to its observer', () => {
  it('a success: the attempt with its duration, and the lag from the event', async () => {
    await endpoint();
    await publish(3000);
    expect(await deliverDue(worker())).toBe(true);
    expect(seen).toEqual([
      ['attempted', 'succeeded', 1.5],
      ['delivered', 4.5],
    ]);
  });

  it.each([
    [{ status: 500 }, 'failed_http'],
    [{ status: 0, error: 'timeout' }, 'failed_network'],
    [{ status: 0, error: 'ECONNREFUSED' }, 'failed_network'],
    [{ status: 0, error: 'address_not_allowed' }, 'address_not_allowed'],
  ] as const)('a failure %j: the attempt as %s, no lag, no disabling', async (result, outcome) => {
    await endpoint();
    await publish();
    answer = result;
    expect(await deliverDue(worker())).toBe(true);
    expect(seen).toEqual([['attempted', outcome, 1.5]]);
  });

  it('a 410: the attempt as gone and the endpoint disabled as gone', async () => {
    await endpoint();
    await publish();
    answer = { status: 410 };
    await deliverDue(worker());
    expect(seen).toEqual([
      ['attempted', 'gone', 1.5],
      ['disabled', 'gone'],
    ]);
  });

  it('a batch of several deliveries to one endpoint answering 410 counts the disabling once', async () => {
    await endpoint();
    await publish();
    await publish();
    answer = { status: 410 };
    await deliverDue({ ...worker(), batchSize: 4 });
    expect(seen.filter((e) => e[0] === 'attempted')).toHaveLength(2);
    expect(seen.filter((e) => e[0] === 'disabled')).toEqual([['disabled', 'gone']]);
  });

  it('the failure that ends a day of failures disables the endpoint as failing, once', async () => {
    await endpoint();
    answer = { status: 503 };
    await publish();
    await deliverDue(worker());
    clock += DISABLE_AFTER_FAILING_MS + 1;
    await publish();
    await deliverDue(worker());
    expect(seen).toEqual([
      ['attempted', 'failed_http', 1.5],
      ['attempted', 'failed_http', 1.5],
      ['disabled', 'failing'],
    ]);
  });

  it('a delivery whose endpoint was deleted: endpoint_unavailable, without a request duration', async () => {
    const { record } = await endpoint();
    await publish();
    // Deleting fails the pending deliveries; this one is made pending again as if it were claimed before.
    await deleteWebhookEndpoint({ ...stores(), now }, project, record._id);
    await db.store.db.collection('webhook_deliveries').updateMany({ projectId: project }, { $set: { status: 'pending' } });
    await deliverDue(worker());
    expect(seen).toEqual([['attempted', 'endpoint_unavailable', null]]);
  });
});

describe('the Prometheus observer', () => {
  it('exposes attempts by outcome, durations, lag and disabled endpoints, with no tenant labels', async () => {
    const metrics = createMetrics('events');
    const prom = webhookDeliveryObserver(metrics);
    await endpoint();
    await publish(1000);
    await deliverDue({ ...worker(), observer: prom });
    answer = { status: 410 };
    await publish();
    await deliverDue({ ...worker(), observer: prom });
    const text = await metrics.registry.metrics();
    expect(text).toContain('webhook_delivery_attempts_total{outcome="succeeded",service="events"} 1');
    expect(text).toContain('webhook_delivery_attempts_total{outcome="gone",service="events"} 1');
    // Every outcome is there from the start (alerts on rate() need the series at 0).
    expect(text).toContain('webhook_delivery_attempts_total{outcome="failed_network",service="events"} 0');
    expect(text).toContain('webhook_attempt_duration_seconds_count{service="events"} 2');
    expect(text).toContain('webhook_attempt_duration_seconds_bucket{le="2.5",service="events"} 2');
    expect(text).toContain('webhook_delivery_lag_seconds_count{service="events"} 1');
    // Occurred 1 s before the attempt, which took 1.5 s.
    expect(text).toContain('webhook_delivery_lag_seconds_bucket{le="1",service="events"} 0');
    expect(text).toContain('webhook_delivery_lag_seconds_bucket{le="2.5",service="events"} 1');
    expect(text).toContain('webhook_endpoints_disabled_total{reason="gone",service="events"} 1');
    expect(text).not.toMatch(/pro-m|whe-|evt-|127\.0\.0\.1/);
  });
});
