/**
 * Webhooks end to end: endpoints through the backend API, events from connect's and the
 * ceremony's outboxes through the events service to a real HTTP receiver on loopback, every
 * delivery verified with the `standardwebhooks` package as an application would.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../kit/softAuthenticator.js';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';
import { WebhookReceiver, type ReceivedWebhook } from '../kit/webhookReceiver.js';

let stack: Stack;
let project: ProjectJson;
const receiver = new WebhookReceiver();
let secret = '';

async function call(path: string, init: { method?: string; body?: unknown; as?: ProjectJson } = {}) {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method: init.method ?? 'POST',
    headers: { authorization: basic(init.as ?? project), 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Verifies a delivery as a receiver would; answers the parsed payload. */
function verified(r: ReceivedWebhook): Record<string, any> {
  const headers = { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) };
  return new Webhook(secret).verify(r.body, headers) as Record<string, any>;
}

beforeAll(async () => {
  await receiver.start();
  // Half a second between attempts, so the retry path runs within the test.
  stack = await startStack({ webhookRetrySchedule: '0.5,0.5,0.5' });
  project = await stack.createProject('webhooks');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver.stop();
});

describe('webhook endpoints', () => {
  it('refuses what is not an http(s) URL or a known event type, naming the field', async () => {
    const base = { url: receiver.url, subscribedEvents: ['user.created'] };
    const ftp = await call('/v2/webhookEndpoints', { body: { ...base, url: 'ftp://127.0.0.1/x' } });
    expect(ftp.status).toBe(400);
    expect(ftp.body.error.validation.map((v: { field: string }) => v.field)).toEqual(['url']);
    const type = await call('/v2/webhookEndpoints', { body: { ...base, subscribedEvents: ['user.created', 'user.exploded'] } });
    expect(type.status).toBe(400);
    expect(type.body.error.validation.map((v: { field: string }) => v.field)).toEqual(['subscribedEvents[1]']);
    const halfAuth = await call('/v2/webhookEndpoints', { body: { ...base, basicAuthUsername: 'hook' } });
    expect(halfAuth.status).toBe(400);
    expect(halfAuth.body.error.validation.map((v: { field: string }) => v.field)).toEqual(['basicAuthPassword']);
  });

  it('creates an endpoint answering its signing secret once, never the password', async () => {
    const r = await call('/v2/webhookEndpoints', {
      body: { url: receiver.url, basicAuthUsername: 'hook', basicAuthPassword: 'hook-pass', subscribedEvents: ['user.created', 'user.deleted', 'passkey.created'], customHeaders: { 'X-App': 'demo' } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: expect.stringMatching(/^whe-\d+$/), url: receiver.url, basicAuthUsername: 'hook', customHeaders: { 'X-App': 'demo' }, subscribedEvents: ['user.created', 'user.deleted', 'passkey.created'] });
    expect(r.body.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(r.body.signingSecret.slice(6), 'base64')).toHaveLength(32);
    expect(typeof r.body.createdMs).toBe('number');
    expect(JSON.stringify(r.body)).not.toContain('hook-pass');
    secret = r.body.signingSecret;
    const stored = await stack.db.collection('webhook_endpoints').findOne({ _id: r.body.id });
    expect(JSON.stringify(stored)).not.toContain('hook-pass');
    expect(JSON.stringify(stored)).not.toContain(secret.slice(6));

    const list = await call('/v2/webhookEndpoints', { method: 'GET' });
    expect(list.status).toBe(200);
    expect(list.body.webhookEndpoints).toHaveLength(1);
    expect(list.body.webhookEndpoints[0]).toMatchObject({ id: r.body.id, url: receiver.url });
    expect(list.body.webhookEndpoints[0]).not.toHaveProperty('signingSecret');
  });

  it("does not show or delete another project's endpoint", async () => {
    const other = await stack.createProject('webhooks-other');
    const list = await call('/v2/webhookEndpoints', { method: 'GET', as: other });
    expect(list.body.webhookEndpoints).toEqual([]);
    const id = (await call('/v2/webhookEndpoints', { method: 'GET' })).body.webhookEndpoints[0].id as string;
    expect((await call(`/v2/webhookEndpoints/${id}`, { method: 'DELETE', as: other })).status).toBe(404);
  });
});

describe('deliveries', () => {
  it('delivers user.created, signed per Standard Webhooks, with the hosted service headers and payload', async () => {
    const created = await call('/v2/users', { body: { fullName: 'Ada', status: 'active' } });
    expect(created.status).toBe(200);
    const userID = created.body.userID as string;
    await receiver.waitFor(() => receiver.of('user.created').some((r) => r.body.includes(userID)));
    const got = receiver.of('user.created').find((r) => r.body.includes(userID))!;
    const payload = verified(got);
    expect(payload).toEqual({ type: 'user.created', metadata: { ip: '', os: '', browser: '', customHeaders: { 'X-App': 'demo' } }, timestamp: expect.any(String), data: { userID, status: 'active', fullName: 'Ada' } });
    expect(got.headers['webhook-id']).toMatch(/^evt-\d+$/);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-app']).toBe('demo');
    expect(got.headers.authorization).toBe(`Basic ${Buffer.from('hook:hook-pass').toString('base64')}`);
    // A body changed in transit no longer verifies.
    expect(() => verified({ ...got, body: got.body.replace('Ada', 'Eve') })).toThrow();
  });

  it('retries a receiver answering 500 and delivers the same webhook-id on the third attempt', async () => {
    const userID = (await call('/v2/users', { body: { status: 'active' } })).body.userID as string;
    await receiver.waitFor(() => receiver.of('user.created').some((r) => r.body.includes(userID)));
    receiver.answers.push(500, 500);
    expect((await call(`/v2/users/${userID}`, { method: 'DELETE' })).status).toBe(200);
    await receiver.waitFor(() => receiver.of('user.deleted').filter((r) => r.body.includes(userID)).length === 3);
    const attempts = receiver.of('user.deleted').filter((r) => r.body.includes(userID));
    expect(attempts.map((a) => a.answered)).toEqual([500, 500, 200]);
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    // Re-signed per attempt, and each attempt verifies.
    for (const a of attempts) expect(verified(a)).toMatchObject({ type: 'user.deleted', data: { userID } });
    const eventId = String(attempts[0]!.headers['webhook-id']);
    await expect.poll(async () => (await stack.db.collection('webhook_deliveries').findOne({ eventId }))?.status).toBe('delivered');
    const delivery = await stack.db.collection('webhook_deliveries').findOne({ eventId });
    expect(delivery).toMatchObject({ attempts: 3 });
    expect((delivery!.log as { status: number }[]).map((l) => l.status)).toEqual([500, 500, 200]);
  });

  it("exports the deliveries above in the events service's /metrics, and connect's relay its published events, naming no tenant", async () => {
    const scrape = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const value = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    // The deliveries of the tests above: two user.created and a user.deleted delivered, two 500s.
    // (A success is observed just after the delivery is stored as delivered: wait for the third.)
    await expect.poll(async () => value(await scrape(stack.ports.events), 'webhook_delivery_lag_seconds_count{service="events"}')).toBeGreaterThanOrEqual(3);
    const events = await scrape(stack.ports.events);
    expect(value(events, 'webhook_delivery_attempts_total{outcome="succeeded",service="events"}')).toBeGreaterThanOrEqual(3);
    expect(value(events, 'webhook_delivery_attempts_total{outcome="failed_http",service="events"}')).toBeGreaterThanOrEqual(2);
    expect(value(events, 'webhook_delivery_attempts_total{outcome="failed_network",service="events"}')).toBe(0);
    expect(value(events, 'webhook_attempt_duration_seconds_count{service="events"}')).toBeGreaterThanOrEqual(5);
    expect(value(events, 'webhook_delivery_lag_seconds_count{service="events"}')).toBeGreaterThanOrEqual(3);
    // Every delivery above took less than a day, the retried one at least the two half-second waits.
    expect(value(events, 'webhook_delivery_lag_seconds_bucket{le="86400",service="events"}')).toBe(value(events, 'webhook_delivery_lag_seconds_count{service="events"}'));
    expect(value(events, 'webhook_delivery_lag_seconds_bucket{le="0.5",service="events"}')).toBeLessThan(value(events, 'webhook_delivery_lag_seconds_count{service="events"}'));
    expect(value(events, 'webhook_endpoints_disabled_total{reason="gone",service="events"}')).toBe(0);
    const connect = await scrape(stack.ports.connect);
    expect(value(connect, 'outbox_events_published_total{service="connect"}')).toBeGreaterThanOrEqual(3);
    expect(value(connect, 'outbox_relay_failures_total{service="connect"}')).toBe(0);
    for (const text of [events, connect]) {
      expect(text).not.toContain(project.projectID);
      expect(text).not.toMatch(/whe-|evt-|127\.0\.0\.1:/);
    }
  });

  it('delivers passkey.created from the ceremony service (B3) with the passkey and user IDs', async () => {
    const userID = (await call('/v2/users', { body: { status: 'active' } })).body.userID as string;
    const start = await call('/v2/passkey/append/start', {
      body: { userID, processID: 'proc-wh', username: 'ada@example.com', clientInformation: backendClientInformation, passkeyIntelFlags: {}, situation: 'default' },
    });
    expect(start.status).toBe(200);
    const { json } = new SoftAuthenticator().createFromOptions(start.body.attestationOptions, 'http://localhost:3000');
    const finish = await call('/v2/passkey/append/finish', {
      body: { userID, processID: 'proc-wh', attestationResponse: JSON.stringify(json), trackingID: 'trk-wh', clientInformation: backendClientInformation },
    });
    expect(finish.status, JSON.stringify(finish.body)).toBe(200);
    await receiver.waitFor(() => receiver.of('passkey.created').some((r) => r.body.includes(userID)));
    const payload = verified(receiver.of('passkey.created').find((r) => r.body.includes(userID))!);
    const passkeys = await call(`/v2/users/${userID}/credentials`, { method: 'GET' });
    expect(payload).toMatchObject({ type: 'passkey.created', metadata: { ip: backendClientInformation.remoteAddress, os: 'Linux', browser: 'Chrome' }, data: { userID, passkeyID: passkeys.body.credentials[0].id } });
  });

  it('loses nothing while the events service is down: the outbox keeps the event until it is back', async () => {
    await stack.supervisor.stopOne('events');
    const created = await call('/v2/users', { body: { fullName: 'While down', status: 'active' } });
    // The change is acknowledged: its event waits in connect's outbox, not in the events service.
    expect(created.status).toBe(200);
    const userID = created.body.userID as string;
    await expect.poll(async () => stack.db.collection('connect_outbox').countDocuments({ 'data.userID': userID, sentAt: { $exists: false } })).toBe(1);
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.of('user.created').some((r) => r.body.includes(userID))).toBe(false);
    await stack.supervisor.restartOne('events');
    await receiver.waitFor(() => receiver.of('user.created').some((r) => r.body.includes(userID)));
    expect(verified(receiver.of('user.created').find((r) => r.body.includes(userID))!)).toMatchObject({ data: { userID } });
    await expect.poll(async () => stack.db.collection('connect_outbox').countDocuments({ 'data.userID': userID, sentAt: { $exists: true } })).toBe(1);
  });

  it('stops delivering to a deleted endpoint', async () => {
    const id = (await call('/v2/webhookEndpoints', { method: 'GET' })).body.webhookEndpoints[0].id as string;
    expect((await call(`/v2/webhookEndpoints/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await call('/v2/webhookEndpoints', { method: 'GET' })).body.webhookEndpoints).toEqual([]);
    const userID = (await call('/v2/users', { body: { status: 'active' } })).body.userID as string;
    // Within connect's cache time (500 ms here) the event may still be written and published, to no one.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await stack.db.collection('connect_outbox').countDocuments({ 'data.userID': userID, sentAt: { $exists: false } })).toBe(0);
    expect(receiver.received.some((r) => r.body.includes(userID))).toBe(false);
    // Once connect knows the project has no endpoint left, a change writes no outbox entry at all.
    const later = (await call('/v2/users', { body: { status: 'active' } })).body.userID as string;
    expect(await stack.db.collection('connect_outbox').countDocuments({ 'data.userID': later })).toBe(0);
  });
});

describe('managing an endpoint: update, re-enable, secret rotation, delivery log', () => {
  const second = new WebhookReceiver();
  let id = '';
  let oldSecret = '';
  beforeAll(() => second.start());
  afterAll(() => second.stop());

  /** Verifies with one secret only, as a receiver holding just that one would. */
  const verifiesWith = (key: string, r: ReceivedWebhook) => {
    const headers = { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) };
    try {
      new Webhook(key).verify(r.body, headers);
      return true;
    } catch {
      return false;
    }
  };
  const newUser = async () => (await call('/v2/users', { body: { status: 'active' } })).body.userID as string;

  it('reads and updates one endpoint, naming a bad field; another project gets 404', async () => {
    const created = await call('/v2/webhookEndpoints', { body: { url: `${second.url}/old`, subscribedEvents: ['user.deleted'] } });
    expect(created.status).toBe(200);
    id = created.body.id as string;
    oldSecret = created.body.signingSecret as string;
    const got = await call(`/v2/webhookEndpoints/${id}`, { method: 'GET' });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id, url: `${second.url}/old`, enabled: true });
    expect(got.body).not.toHaveProperty('signingSecret');
    const bad = await call(`/v2/webhookEndpoints/${id}`, { method: 'PATCH', body: { subscribedEvents: ['user.exploded'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.validation.map((v: { field: string }) => v.field)).toEqual(['subscribedEvents[0]']);
    const badUrl = await call(`/v2/webhookEndpoints/${id}`, { method: 'PATCH', body: { url: 'ftp://x/' } });
    expect(badUrl.body.error.validation.map((v: { field: string }) => v.field)).toEqual(['url']);
    const patched = await call(`/v2/webhookEndpoints/${id}`, { method: 'PATCH', body: { url: second.url, subscribedEvents: ['user.created'], customHeaders: { 'X-Second': 'yes' } } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, url: second.url, subscribedEvents: ['user.created'], customHeaders: { 'X-Second': 'yes' } });
    const other = await stack.createProject('webhooks-third');
    for (const [method, path, body] of [
      ['GET', `/v2/webhookEndpoints/${id}`, undefined],
      ['PATCH', `/v2/webhookEndpoints/${id}`, { enabled: true }],
      ['POST', `/v2/webhookEndpoints/${id}/signingSecret`, {}],
      ['GET', `/v2/webhookEndpoints/${id}/deliveries`, undefined],
    ] as const) {
      const r = await call(path, { method, body, as: other });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.type).toBe('webhook_endpoint_not_found');
    }
  });

  it('is disabled by a 410 and delivers again once re-enabled', async () => {
    second.answers.push(410);
    const gone = await newUser();
    await second.waitFor(() => second.of('user.created').some((r) => r.body.includes(gone)));
    await expect.poll(async () => (await call(`/v2/webhookEndpoints/${id}`, { method: 'GET' })).body).toMatchObject({ enabled: false, disabledReason: 'gone' });
    const skipped = await newUser();
    await new Promise((r) => setTimeout(r, 1000));
    expect(second.received.some((r) => r.body.includes(skipped))).toBe(false);
    const enabled = await call(`/v2/webhookEndpoints/${id}`, { method: 'PATCH', body: { enabled: true } });
    expect(enabled.status).toBe(200);
    expect(enabled.body.enabled).toBe(true);
    expect(enabled.body).not.toHaveProperty('disabledReason');
    const back = await newUser();
    await second.waitFor(() => second.of('user.created').some((r) => r.body.includes(back)));
    expect(verifiesWith(oldSecret, second.of('user.created').find((r) => r.body.includes(back))!)).toBe(true);
  });

  it('rotates the secret: during the overlap a receiver with only the old and one with only the new secret both verify', async () => {
    const tooLong = await call(`/v2/webhookEndpoints/${id}/signingSecret`, { body: { overlapSeconds: 604801 } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.validation.map((v: { field: string }) => v.field)).toEqual(['overlapSeconds']);
    const rotated = await call(`/v2/webhookEndpoints/${id}/signingSecret`, { body: {} });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.signingSecret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.body.previousSecretExpiresMs - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
    expect(rotated.body.previousSecretExpiresMs - Date.now()).toBeLessThanOrEqual(86_400_000);
    expect(new Date(rotated.body.previousSecretExpires).getTime()).toBe(rotated.body.previousSecretExpiresMs);
    expect((await call(`/v2/webhookEndpoints/${id}`, { method: 'GET' })).body).not.toHaveProperty('signingSecret');
    const stored = JSON.stringify(await stack.db.collection('webhook_endpoints').findOne({ _id: id as never }));
    expect(stored).not.toContain(oldSecret.slice(6));
    expect(stored).not.toContain(newSecret.slice(6));

    const during = await newUser();
    await second.waitFor(() => second.of('user.created').some((r) => r.body.includes(during)));
    const got = second.of('user.created').find((r) => r.body.includes(during))!;
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifiesWith(oldSecret, got)).toBe(true);
    expect(verifiesWith(newSecret, got)).toBe(true);
    expect(verifiesWith(secret, got)).toBe(false);

    // Ending the overlap at once (a leaked secret): only the newest secret verifies.
    const now = await call(`/v2/webhookEndpoints/${id}/signingSecret`, { body: { overlapSeconds: 0 } });
    expect(now.body).not.toHaveProperty('previousSecretExpires');
    const after = await newUser();
    await second.waitFor(() => second.of('user.created').some((r) => r.body.includes(after)));
    const last = second.of('user.created').find((r) => r.body.includes(after))!;
    expect(verifiesWith(now.body.signingSecret, last)).toBe(true);
    expect(verifiesWith(newSecret, last)).toBe(false);
    expect(verifiesWith(oldSecret, last)).toBe(false);
  });

  it('logs a failed then a succeeded attempt, readable through the delivery log', async () => {
    second.answers.push(503);
    const userID = await newUser();
    await second.waitFor(() => second.of('user.created').filter((r) => r.body.includes(userID)).length === 2);
    const eventID = String(second.of('user.created').find((r) => r.body.includes(userID))!.headers['webhook-id']);
    const path = `/v2/webhookEndpoints/${id}/deliveries?filter[]=${encodeURIComponent(`eventID:eq:${eventID}`)}`;
    await expect.poll(async () => (await call(path, { method: 'GET' })).body.deliveries?.[0]?.status).toBe('succeeded');
    const log = await call(path, { method: 'GET' });
    expect(log.status).toBe(200);
    expect(log.body.paging).toEqual({ page: 1, totalPages: 1, totalItems: 1 });
    const [delivery] = log.body.deliveries;
    expect(delivery).toMatchObject({ eventID, eventType: 'user.created', status: 'succeeded', attemptCount: 2, created: expect.any(String), finishedMs: expect.any(Number) });
    expect(delivery.attempts.map((a: { httpStatus: number }) => a.httpStatus)).toEqual([503, 200]);
    for (const a of delivery.attempts) {
      expect(typeof a.durationMs).toBe('number');
      expect(new Date(a.time).getTime()).toBe(a.timeMs);
    }

    const all = await call(`/v2/webhookEndpoints/${id}/deliveries?pageSize=2&sort=created:desc`, { method: 'GET' });
    expect(all.body.deliveries).toHaveLength(2);
    expect(all.body.deliveries[0].eventID).toBe(eventID);
    // gone, back, during, after and this one: no delivery is made for an event while the endpoint is disabled.
    expect(all.body.paging).toEqual({ page: 1, totalPages: 3, totalItems: 5 });
    const failed = await call(`/v2/webhookEndpoints/${id}/deliveries?filter[]=status:eq:failed`, { method: 'GET' });
    expect(failed.body.deliveries).toHaveLength(1);
    expect(failed.body.deliveries[0].attempts).toEqual([expect.objectContaining({ httpStatus: 410 })]);
    const bad = await call(`/v2/webhookEndpoints/${id}/deliveries?filter[]=status:eq:delivered`, { method: 'GET' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.validation.map((v: { field: string }) => v.field)).toEqual(['filter']);
  });
});
