/**
 * Fault test (issue #31, item 4): a producer killed with SIGKILL right after it acknowledged a
 * change, before its relay published the change's event, delivers that event once it is back.
 *
 * To make the window certain rather than lucky, the stack runs with OUTBOX_RELAY_HOLD_MS (a test
 * setting, docs/operations.md): the relays leave an event alone until it is 3 s old, so the kill
 * lands while the event is still only in the producer's outbox. The supervisor restarts the
 * process; its relay publishes the event; the receiver (loopback, verifying with
 * `standardwebhooks`) gets it at least once, always under the event's ID.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../kit/softAuthenticator.js';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';
import { VerifyingWebhookReceiver } from '../kit/verifyingWebhookReceiver.js';

const HOLD_MS = 3000;
let stack: Stack;
let project: ProjectJson;
const receiver = new VerifyingWebhookReceiver();

async function call(path: string, body?: unknown, method = 'POST') {
  const res = await fetch(`${stack.backendUrl}${path}`, { method, headers: { authorization: basic(project), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function readyAgain(port: number): Promise<void> {
  const end = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(500) })).status === 200) return;
    } catch {
      // Not up yet.
    }
    if (Date.now() > end) throw new Error('not ready 30 s after the kill');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Kills `name` at once, checks its event is still unsent in `outbox`, and waits until the process is back. */
async function killBeforeRelay(name: 'connect' | 'ceremony', port: number, outbox: string, filter: Record<string, unknown>): Promise<string> {
  const pid = stack.supervisor.pidOf(name);
  expect(pid, `${name} runs`).toBeDefined();
  process.kill(pid!, 'SIGKILL');
  // Nothing changes the entry while its writer is dead: this is its state at the kill.
  const entry = await stack.db.collection<{ _id: string }>(outbox).findOne(filter);
  expect(entry, `${name}'s outbox holds the acknowledged change's event`).toMatchObject({ state: 'ready' });
  expect(entry).not.toHaveProperty('sentAt');
  expect(receiver.received.some((r) => r.id === entry!._id)).toBe(false);
  await readyAgain(port);
  return entry!._id;
}

beforeAll(async () => {
  await receiver.start();
  stack = await startStack({ outboxRelayHoldMs: HOLD_MS });
  project = await stack.createProject('killed-producer');
  const endpoint = await call('/v2/webhookEndpoints', { url: receiver.url, subscribedEvents: ['user.created', 'passkey.created'] });
  expect(endpoint.status).toBe(200);
  receiver.secret = endpoint.body.signingSecret as string;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await receiver.stop();
});

describe('a producer killed right after acknowledging a change', () => {
  it('connect: the user.created of a user it acknowledged arrives after its restart, under one event ID', async () => {
    const created = await call('/v2/users', { fullName: 'Killed', status: 'active' });
    expect(created.status).toBe(200);
    const userID = created.body.userID as string;
    const eventId = await killBeforeRelay('connect', stack.ports.connect, 'connect_outbox', { 'data.userID': userID, type: 'user.created' });

    await receiver.waitFor(() => receiver.received.some((r) => r.id === eventId), 30_000);
    const got = receiver.received.filter((r) => r.payload?.data.userID === userID);
    expect(got.length).toBeGreaterThanOrEqual(1);
    expect(new Set(got.map((r) => r.id))).toEqual(new Set([eventId]));
    expect(got[0]!.payload).toMatchObject({ type: 'user.created', data: { userID, status: 'active', fullName: 'Killed' } });
    expect(receiver.unverified).toBe(0);
  });

  it('ceremony: the passkey.created of a passkey it acknowledged (B3) arrives after its restart, under one event ID', async () => {
    const userID = (await call('/v2/users', { status: 'active' })).body.userID as string;
    const start = await call('/v2/passkey/append/start', { userID, processID: 'proc-kill', username: 'kill@example.com', clientInformation: backendClientInformation, passkeyIntelFlags: {}, situation: 'default' });
    expect(start.status).toBe(200);
    const { json } = new SoftAuthenticator().createFromOptions(start.body.attestationOptions, 'http://localhost:3000');
    const finish = await call('/v2/passkey/append/finish', { userID, processID: 'proc-kill', attestationResponse: JSON.stringify(json), trackingID: 'trk-kill', clientInformation: backendClientInformation });
    expect(finish.status, JSON.stringify(finish.body)).toBe(200);
    const eventId = await killBeforeRelay('ceremony', stack.ports.ceremony, 'ceremony_outbox', { 'data.userID': userID, type: 'passkey.created' });

    await receiver.waitFor(() => receiver.received.some((r) => r.id === eventId), 30_000);
    const got = receiver.received.filter((r) => r.type === 'passkey.created' && r.payload?.data.userID === userID);
    expect(got.length).toBeGreaterThanOrEqual(1);
    expect(new Set(got.map((r) => r.id))).toEqual(new Set([eventId]));
    expect(receiver.unverified).toBe(0);
  });
});
