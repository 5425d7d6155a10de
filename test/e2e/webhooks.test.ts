/**
 * Webhooks end to end: endpoints through the backend API, events from connect's and the
 * ceremony's outboxes through the events service to a real HTTP receiver on loopback, every
 * delivery verified with the `standardwebhooks` package as an application would.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../kit/softAuthenticator.js';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

/** A receiver: records every request and answers the next queued status (200 when none is queued). */
class Receiver {
  received: Received[] = [];
  answers: number[] = [];
  private server!: Server;
  url = '';
  async start() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const answered = this.answers.shift() ?? 200;
        this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
        res.writeHead(answered).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }
  of(type: string): Received[] {
    return this.received.filter((r) => r.headers['x-corbado-webhook-event'] === type);
  }
  async waitFor(predicate: () => boolean, timeoutMs = 20_000) {
    const end = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > end) throw new Error(`timed out; received: ${JSON.stringify(this.received.map((r) => [r.headers['x-corbado-webhook-event'], r.answered]))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  stop() {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let stack: Stack;
let project: ProjectJson;
const receiver = new Receiver();
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
function verified(r: Received): Record<string, any> {
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
