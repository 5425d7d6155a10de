/**
 * Managing endpoints against the store (embedded, or MONGODB_URI): update and re-enable, secret
 * rotation with an overlap (both signatures verify, the old one is sealed and dropped after), the
 * delivery log's list query, and the operator's per-project private-address allowance (with a real
 * POST to a loopback receiver).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/kit/openTestDatabase.js';
import { parseWebhooksCommand, runWebhooksCommand, UsageError } from '../src/cli/webhooksCommand.js';
import { webhookPoster } from '../src/delivery/postWebhook.js';
import { createWebhookEndpoint, type EndpointDeps } from '../src/domain/createWebhookEndpoint.js';
import { deliverDue, type DeliveryWorkerDeps } from '../src/domain/deliverDue.js';
import { listWebhookDeliveries, parseDeliveryListQuery } from '../src/domain/listWebhookDeliveries.js';
import { describeEndpoint } from '../src/domain/manageWebhookEndpoints.js';
import type { PostResult, WebhookPoster } from '../src/domain/ports.js';
import { publishEvents, type PublishedEvent } from '../src/domain/publishEvents.js';
import { rotateSigningSecret } from '../src/domain/rotateSigningSecret.js';
import { updateWebhookEndpoint, type UpdateWebhookEndpointInput } from '../src/domain/updateWebhookEndpoint.js';
import { deliveryIndexes, mongoDeliveryStore } from '../src/store/webhookDeliveries.js';
import { mongoWebhookEndpointStore, webhookEndpointIndexes } from '../src/store/webhookEndpoints.js';
import { mongoWebhookProjectSettingsStore, webhookProjectSettingsIndexes } from '../src/store/webhookProjectSettings.js';

let db: TestDatabase;
let clock = Date.now();
const now = () => new Date(clock);
const masterKey = Buffer.alloc(32, 5);
let projectSeq = 0;
let project = '';
let posted: { url: string; headers: Record<string, string>; body: string; allowPrivate: boolean }[] = [];
let answers: PostResult[] = [];

const fakePost: WebhookPoster = async (url, headers, body, allowPrivate) => {
  posted.push({ url, headers, body, allowPrivate });
  return answers.shift() ?? { status: 200 };
};

function deps(opts: { allowPrivate?: boolean; post?: WebhookPoster } = {}) {
  const endpoints = mongoWebhookEndpointStore(db.store.db);
  const deliveries = mongoDeliveryStore(db.store.db);
  const settings = mongoWebhookProjectSettingsStore(db.store.db);
  const allowPrivateAddresses = opts.allowPrivate ?? true;
  const endpointDeps: EndpointDeps = { endpoints, masterKey, allowPrivateAddresses, settings, subscriptionCacheMs: 0, resolveHost: async () => ['127.0.0.1'], now };
  const worker: DeliveryWorkerDeps = { endpoints, deliveries, settings, masterKey, allowPrivateAddresses, retryDelaysSeconds: [5, 300], owner: 'w1', leaseMs: 60_000, now, post: opts.post ?? fakePost };
  return { endpoints, deliveries, settings, endpointDeps, worker, now };
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

const newEndpoint = (over: Partial<Parameters<typeof createWebhookEndpoint>[1]> = {}, d = deps()) =>
  createWebhookEndpoint(d.endpointDeps, { projectId: project, url: 'http://127.0.0.1:9/hook', basicAuthUsername: '', basicAuthPassword: '', subscribedEvents: ['user.created', 'user.deleted'], customHeaders: {}, ...over });

const update = (endpointId: string, over: Partial<UpdateWebhookEndpointInput>, d = deps()) =>
  updateWebhookEndpoint(d.endpointDeps, { projectId: project, endpointId, subscribedEvents: [], customHeaders: {}, removeCustomHeaders: false, ...over });

/** Whether a receiver holding `secret` verifies the delivery, at the time it was signed (the test's clock runs ahead of the real one). */
function verifies(secret: string, p: { body: string; headers: Record<string, string> }): boolean {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Number(p.headers['webhook-timestamp']) * 1000);
  try {
    new Webhook(secret).verify(p.body, p.headers);
    return true;
  } catch {
    return false;
  } finally {
    vi.useRealTimers();
  }
}

const fields = (err: unknown) => (err as { validation?: { field: string }[] }).validation?.map((v) => v.field);

beforeAll(async () => {
  db = await openTestDatabase('events_manage_test', { ...webhookEndpointIndexes, ...deliveryIndexes, ...webhookProjectSettingsIndexes });
});
afterAll(() => db.close());
beforeEach(async () => {
  await db.store.db.collection('webhook_deliveries').deleteMany({});
  project = `pro-${++projectSeq}`;
  posted = [];
  answers = [];
});

describe('updating an endpoint', () => {
  it('changes the URL, events, headers and basic auth, keeping what is not named', async () => {
    const { record } = await newEndpoint({ basicAuthUsername: 'u', basicAuthPassword: 'p1', customHeaders: { 'X-A': '1' } });
    clock += 1000;
    const changed = await update(record._id, { url: 'https://hooks.example.com/x', subscribedEvents: ['passkey.created'], customHeaders: { 'X-B': '2' }, basicAuthPassword: 'second password p2' });
    expect(changed).toMatchObject({ url: 'https://hooks.example.com/x', subscribedEvents: ['passkey.created'], customHeaders: { 'X-B': '2' }, basicAuthUsername: 'u', updatedAt: now() });
    expect(JSON.stringify(changed)).not.toContain('second password p2');
    // The new password is the one sent.
    await publishEvents(deps(), [event({ type: 'passkey.created' })]);
    await deliverDue(deps().worker);
    expect(posted[0]!.headers.authorization).toBe(`Basic ${Buffer.from('u:second password p2').toString('base64')}`);
    const unchanged = await update(record._id, {});
    expect(unchanged.updatedAt).toEqual(changed.updatedAt);
    const removed = await update(record._id, { basicAuthUsername: '', removeCustomHeaders: true });
    expect(removed).toMatchObject({ basicAuthUsername: '', customHeaders: {} });
    expect(removed.basicAuthPassword).toBeUndefined();
  });

  it('checks the change as a create does, naming the field, and writes nothing when it fails', async () => {
    const { record } = await newEndpoint({ basicAuthUsername: 'u', basicAuthPassword: 'p' });
    await expect(update(record._id, { url: 'ftp://x/' }).catch(fields)).resolves.toEqual(['url']);
    await expect(update(record._id, { subscribedEvents: ['user.exploded'] }).catch(fields)).resolves.toEqual(['subscribedEvents[0]']);
    await expect(update(record._id, { customHeaders: { 'webhook-id': 'x' } }).catch(fields)).resolves.toEqual(['customHeaders.webhook-id']);
    await expect(update(record._id, { customHeaders: { 'X-A': '1' }, removeCustomHeaders: true }).catch(fields)).resolves.toEqual(['removeCustomHeaders']);
    // Removing the user name but giving a password, or emptying the password alone: half a basic auth.
    await expect(update(record._id, { basicAuthUsername: '', basicAuthPassword: 'x' }).catch(fields)).resolves.toEqual(['basicAuthUsername']);
    await expect(update(record._id, { basicAuthPassword: '' }).catch(fields)).resolves.toEqual(['basicAuthPassword']);
    const noAuth = await newEndpoint();
    await expect(update(noAuth.record._id, { basicAuthUsername: 'only' }).catch(fields)).resolves.toEqual(['basicAuthPassword']);
    expect(await deps().endpoints.find(project, record._id)).toMatchObject({ url: record.url, subscribedEvents: record.subscribedEvents, basicAuthUsername: 'u' });
  });

  it("answers not_found for another project's endpoint, and leaves it alone", async () => {
    const { record } = await newEndpoint();
    project = `pro-${++projectSeq}`;
    await expect(update(record._id, { url: 'http://127.0.0.1:1/x' })).rejects.toMatchObject({ type: 'webhook_endpoint_not_found' });
    await expect(rotateSigningSecret(deps().endpointDeps, { projectId: project, endpointId: record._id })).rejects.toMatchObject({ type: 'webhook_endpoint_not_found' });
    await expect(listWebhookDeliveries(deps(), { projectId: project, endpointId: record._id, filter: [], sort: '' })).rejects.toMatchObject({ type: 'webhook_endpoint_not_found' });
    expect((await deps().endpoints.find(record.projectId, record._id))!.url).toBe(record.url);
  });

  it('re-enables an endpoint disabled by a 410, and its failure streak starts again', async () => {
    const { record } = await newEndpoint();
    const d = deps();
    answers = [{ status: 500 }, { status: 410 }];
    await publishEvents(d, [event()]);
    await deliverDue(d.worker);
    clock += 5000;
    await deliverDue(d.worker);
    expect(await d.endpoints.find(project, record._id)).toMatchObject({ enabled: false, disabledReason: 'gone', failingSince: expect.any(Date) });
    expect(describeEndpoint((await d.endpoints.find(project, record._id))!, now())).toMatchObject({ enabled: false, disabledReason: 'gone' });
    const enabled = await update(record._id, { enabled: true });
    expect(enabled.enabled).toBe(true);
    expect(enabled.disabledReason).toBeUndefined();
    expect(enabled.failingSince).toBeUndefined();
    expect(describeEndpoint(enabled, now())).not.toHaveProperty('disabledReason');
    await publishEvents(d, [event()]);
    await deliverDue(d.worker);
    expect(posted).toHaveLength(3);
    // Disabling by hand: the next due delivery is failed without a POST.
    expect(await update(record._id, { enabled: false })).toMatchObject({ enabled: false, disabledReason: 'manual' });
    await publishEvents(d, [event()]);
    await deliverDue(d.worker);
    expect(posted).toHaveLength(3);
  });
});

describe('rotating the signing secret', () => {
  it('signs with both secrets during the overlap, so a receiver holding either verifies; then with the new one only', async () => {
    const { record, signingSecret: oldSecret } = await newEndpoint();
    const d = deps();
    const rotated = await rotateSigningSecret(d.endpointDeps, { projectId: project, endpointId: record._id, overlapSeconds: 3600 });
    const newSecret = rotated.signingSecret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(describeEndpoint(rotated.record, now())).toMatchObject({ previousSecretExpires: new Date(clock + 3_600_000).toISOString(), previousSecretExpiresMs: BigInt(clock + 3_600_000) });
    // Both sealed at rest: neither secret appears in the stored document.
    const stored = JSON.stringify(await d.endpoints.find(project, record._id));
    expect(stored).not.toContain(oldSecret.slice(6));
    expect(stored).not.toContain(newSecret.slice(6));

    await publishEvents(d, [event()]);
    await deliverDue(d.worker);
    const during = posted[0]!;
    expect(during.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verifies(oldSecret, during)).toBe(true);
    expect(verifies(newSecret, during)).toBe(true);

    clock += 3_600_000;
    expect(describeEndpoint((await d.endpoints.find(project, record._id))!, now())).not.toHaveProperty('previousSecretExpires');
    await publishEvents(d, [event()]);
    await deliverDue(d.worker);
    const after = posted[1]!;
    expect(after.headers['webhook-signature']).toMatch(/^v1,\S+$/);
    expect(verifies(oldSecret, after)).toBe(false);
    expect(verifies(newSecret, after)).toBe(true);
    // The sweep removes the expired secret from the document.
    expect(await d.endpoints.dropExpiredPreviousSecrets(now())).toBeGreaterThanOrEqual(1);
    expect(await d.endpoints.find(project, record._id)).not.toHaveProperty('previousSigningSecret');
  });

  it('defaults to a day, ends the old secret at once with overlap 0, and keeps at most two valid', async () => {
    const { record, signingSecret: first } = await newEndpoint();
    const d = deps();
    const second = await rotateSigningSecret(d.endpointDeps, { projectId: project, endpointId: record._id });
    expect(second.record.previousSecretExpiresAt).toEqual(new Date(clock + 86_400_000));
    const third = await rotateSigningSecret(d.endpointDeps, { projectId: project, endpointId: record._id });
    await publishEvents(d, [event()]);
    await deliverDue(d.worker);
    const p = posted[0]!;
    expect(verifies(first, p)).toBe(false);
    expect(verifies(second.signingSecret, p)).toBe(true);
    expect(verifies(third.signingSecret, p)).toBe(true);
    const fourth = await rotateSigningSecret(d.endpointDeps, { projectId: project, endpointId: record._id, overlapSeconds: 0 });
    expect(fourth.record.previousSigningSecret).toBeUndefined();
    expect(describeEndpoint(fourth.record, now())).not.toHaveProperty('previousSecretExpires');
  });

  it('lets one of two concurrent rotations win; the other answers an error, never a secret that was not stored', async () => {
    const { record } = await newEndpoint();
    const d = deps();
    const results = await Promise.allSettled([0, 1, 2].map(() => rotateSigningSecret(d.endpointDeps, { projectId: project, endpointId: record._id })));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ type: 'webhook_secret_rotated_concurrently' });
    // The secret stored last is one a caller was answered, and deliveries are signed with it.
    const current = (await d.endpoints.find(project, record._id))!;
    const holder = won.map((r) => r.value).find((v) => v.record.signingSecret.iv === current.signingSecret.iv);
    expect(holder).toBeDefined();
    await publishEvents(d, [event()]);
    await deliverDue(d.worker);
    expect(verifies(holder!.signingSecret, posted[0]!)).toBe(true);
  });
});

describe('the delivery log', () => {
  it('lists an endpoint\'s deliveries newest first with their attempts, filtered, sorted and paged', async () => {
    const { record } = await newEndpoint();
    const d = deps();
    const e1 = event({ type: 'user.created' });
    await publishEvents(d, [e1]);
    answers = [{ status: 500 }, { status: 0, error: 'ECONNREFUSED' }];
    await deliverDue(d.worker);
    clock += 5000;
    await deliverDue(d.worker);
    clock += 1000;
    const e2 = event({ type: 'user.deleted' });
    await publishEvents(d, [e2]);
    await deliverDue(d.worker);

    const list = (filter: string[] = [], sort = '', page?: number, pageSize?: number) => listWebhookDeliveries(d, { projectId: project, endpointId: record._id, filter, sort, page, pageSize });
    const all = await list();
    expect(all.paging).toEqual({ page: 1, totalPages: 1, totalItems: 2 });
    expect(all.items.map((i) => i.eventId)).toEqual([e2.id, e1.id]);
    expect(all.items[0]).toMatchObject({ eventType: 'user.deleted', status: 'succeeded', attemptCount: 1, attempts: [{ httpStatus: 200 }] });
    expect(all.items[1]).toMatchObject({ eventType: 'user.created', status: 'pending', attemptCount: 2, nextAttemptMs: BigInt(clock - 1000 + 300_000) });
    expect(all.items[1]!.attempts).toEqual([
      expect.objectContaining({ httpStatus: 500, timeMs: BigInt(clock - 6000) }),
      expect.objectContaining({ httpStatus: 0, error: 'ECONNREFUSED', durationMs: 0n }),
    ]);
    expect(all.items[1]!.attempts[0]).not.toHaveProperty('error');
    expect((await list([], 'created:asc')).items.map((i) => i.eventId)).toEqual([e1.id, e2.id]);
    expect((await list(['status:eq:pending'])).items.map((i) => i.eventId)).toEqual([e1.id]);
    expect((await list(['status:eq:succeeded', 'eventType:eq:user.deleted'])).items.map((i) => i.eventId)).toEqual([e2.id]);
    expect((await list(['eventType:eq:user.created', 'status:eq:succeeded'])).items).toEqual([]);
    expect((await list([`eventID:eq:${e1.id}`])).items.map((i) => i.eventId)).toEqual([e1.id]);
    const page2 = await list([], '', 2, 1);
    expect(page2.items.map((i) => i.eventId)).toEqual([e1.id]);
    expect(page2.paging).toEqual({ page: 2, totalPages: 2, totalItems: 2 });
  });

  it('refuses unknown filters, statuses, event types and sorts as 400s naming the parameter', () => {
    const bad = (input: Partial<Parameters<typeof parseDeliveryListQuery>[0]>) => {
      try {
        parseDeliveryListQuery({ filter: [], sort: '', ...input });
      } catch (err) {
        return fields(err);
      }
      return null;
    };
    expect(bad({ filter: ['status:eq:delivered'] })).toEqual(['filter']);
    expect(bad({ filter: ['eventType:eq:user.exploded'] })).toEqual(['filter']);
    expect(bad({ filter: ['eventID:eq:nope'] })).toEqual(['filter']);
    expect(bad({ filter: ['url:eq:x'] })).toEqual(['filter']);
    expect(bad({ filter: ['status:eq:failed', 'status:eq:pending'] })).toEqual(['filter']);
    expect(bad({ sort: 'status:asc' })).toEqual(['sort']);
    expect(bad({ pageSize: 101 })).toEqual(['pageSize']);
    expect(parseDeliveryListQuery({ filter: ['status:eq:failed'], sort: 'created:asc' })).toEqual({ status: 'failed', direction: 'asc', page: 1, pageSize: 10 });
  });
});

describe("the operator's private-address allowance", () => {
  let receiver: Server;
  let url = '';
  let hits = 0;
  beforeAll(async () => {
    receiver = createServer((_req, res) => {
      hits++;
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('lifts the rule for one project only: at creation, on update and at every attempt, until revoked', async () => {
    const d = deps({ allowPrivate: false, post: webhookPoster(2000) });
    const other = project;
    project = `pro-${++projectSeq}`;
    await expect(newEndpoint({ url }, d).catch(fields)).resolves.toEqual(['url']);
    await runWebhooksCommand(d, parseWebhooksCommand(['settings', '--project', project, '--private-addresses', 'allowed']));
    const { record } = await newEndpoint({ url }, d);
    await expect(update(record._id, { url: `${url}/2` }, d)).resolves.toMatchObject({ url: `${url}/2` });
    await publishEvents(d, [event()]);
    await deliverDue(d.worker);
    expect(hits).toBe(1);
    // Another project is still refused.
    const keep = project;
    project = other;
    await expect(newEndpoint({ url }, d).catch(fields)).resolves.toEqual(['url']);
    project = keep;
    // Revoked: the next attempt is refused before any connection.
    expect(await runWebhooksCommand(d, parseWebhooksCommand(['settings', '--project', project, '--private-addresses', 'refused']))).toMatchObject({ projectID: project, privateAddresses: 'refused' });
    await publishEvents(d, [event()]);
    await deliverDue(d.worker);
    expect(hits).toBe(1);
    const log = await listWebhookDeliveries(d, { projectId: project, endpointId: record._id, filter: ['status:eq:pending'], sort: '' });
    expect(log.items[0]!.attempts).toEqual([expect.objectContaining({ httpStatus: 0, error: 'address_not_allowed' })]);
    await expect(update(record._id, { url: `${url}/3` }, d).catch(fields)).resolves.toEqual(['url']);
  });

  it('the CLI shows, sets and lists settings, and refuses bad arguments', async () => {
    const d = deps();
    expect(await runWebhooksCommand(d, parseWebhooksCommand(['settings', '--project', project]))).toEqual({ projectID: project, privateAddresses: 'refused', updated: null });
    await runWebhooksCommand(d, parseWebhooksCommand(['settings', '--project', project, '--private-addresses', 'allowed']));
    const all = (await runWebhooksCommand(d, parseWebhooksCommand(['settings']))) as { projects: { projectID: string; privateAddresses: string }[] };
    expect(all.projects).toContainEqual(expect.objectContaining({ projectID: project, privateAddresses: 'allowed' }));
    expect(() => parseWebhooksCommand(['settings', '--project', project, '--private-addresses', 'yes'])).toThrow(UsageError);
    expect(() => parseWebhooksCommand(['settings', '--private-addresses', 'allowed'])).toThrow(UsageError);
    expect(() => parseWebhooksCommand(['lift'])).toThrow(UsageError);
    expect(() => parseWebhooksCommand(['settings', '--project', 'acme'])).toThrow(UsageError);
    await expect(runWebhooksCommand(d, { kind: 'settings', projectId: 'acme', allowPrivateAddresses: true })).rejects.toMatchObject({ kind: 'invalid_argument' });
  });
});
