/**
 * SMS delivery: deliverChallenge with the webhook and Twilio adapters against local HTTP
 * receivers. The webhook receiver checks the signature the way docs/api/challenges.md ("Delivery") tells operators to;
 * the Twilio double checks path, Basic auth and the form body of the Messages API.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../runtime/errors.js';
import {
  deliverChallenge,
  signWebhook,
  smsWebhookSender,
  twilioSmsSender,
  verifyWebhookSignature,
  type DeliverChallengeInput,
  type DeliveryDeps,
  type SmsWebhookPayload,
} from '../src/delivery/index.js';

const NOW = new Date('2030-01-01T12:00:00.000Z');
const NOW_S = NOW.getTime() / 1000;
const SECRET = 'test-secret-0123456789abcdef0123456789abcdef';
const SID = `AC${'a1'.repeat(16)}`;
const TOKEN = 'twilio-auth-token';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An HTTP server recording every request; `respond` decides each answer (204 by default). */
class Receiver {
  readonly requests: Received[] = [];
  respond: (req: Received, res: ServerResponse) => void = (_req, res) => void res.writeHead(204).end();
  private server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      this.requests.push(received);
      this.respond(received, res);
    });
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const receiver = new Receiver();
let lines: string[];
let sleeps: number[];
const logger = () => pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });

beforeAll(() => receiver.start());
afterAll(() => receiver.stop());
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond = (_req, res) => void res.writeHead(204).end();
  lines = [];
  sleeps = [];
});

const depsWith = (sms: DeliveryDeps['sms']): DeliveryDeps => ({ sms, logger: logger(), now: () => new Date(NOW), sleep: async (ms) => void sleeps.push(ms) });

const smsChallenge = (over: Partial<DeliverChallengeInput> = {}): DeliverChallengeInput => ({
  type: 'sms_otp',
  identifierValue: '+4915112345678',
  value: '739204',
  challengeId: 'cha-22222222222222222222',
  expiresAt: new Date(NOW.getTime() + 300_000),
  appName: 'Acme Shop',
  emailLinkUrl: '',
  ...over,
});

describe('SMS webhook', () => {
  const webhook = () => smsWebhookSender({ url: `${receiver.url}/sms?tenant=1`, secret: SECRET, now: () => new Date(NOW) });

  it('POSTs signed JSON that the receiver can verify', async () => {
    const receipt = await deliverChallenge(depsWith(webhook()), smsChallenge());
    expect(receipt).toEqual({ channel: 'sms', attempts: 1 });
    expect(receiver.requests).toHaveLength(1);
    const req = receiver.requests[0];
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/sms?tenant=1');
    expect(req.headers['content-type']).toBe('application/json');

    const payload = JSON.parse(req.body) as SmsWebhookPayload;
    expect(payload).toEqual({
      to: '+4915112345678',
      body: '739204 is your Acme Shop verification code. It expires in 5 minutes.',
      challengeID: 'cha-22222222222222222222',
      sentAt: '2030-01-01T12:00:00.000Z',
    });

    // What a receiver does, written out with node:crypto only.
    const timestamp = req.headers['x-passkeyauth-timestamp'] as string;
    expect(timestamp).toBe(String(NOW_S));
    const expected = `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${req.body}`).digest('hex')}`;
    expect(req.headers['x-passkeyauth-signature']).toBe(expected);

    // And the helper the package exports for receivers.
    const check = { secret: SECRET, body: req.body, timestamp, signature: req.headers['x-passkeyauth-signature'] as string, now: NOW };
    expect(verifyWebhookSignature(check)).toEqual({ ok: true });
    expect(verifyWebhookSignature({ ...check, now: new Date(NOW.getTime() + 299_000) })).toEqual({ ok: true });
  });

  it('lets receivers reject old timestamps, altered bodies, other secrets and missing headers', () => {
    const body = JSON.stringify({ to: '+4915112345678', body: 'x', sentAt: NOW.toISOString() });
    const signature = signWebhook(SECRET, NOW_S, body);
    const base = { secret: SECRET, body, timestamp: String(NOW_S), signature, now: NOW };
    expect(verifyWebhookSignature({ ...base, now: new Date(NOW.getTime() + 301_000) })).toMatchObject({ ok: false, reason: expect.stringContaining('at most 300 s') });
    expect(verifyWebhookSignature({ ...base, now: new Date(NOW.getTime() - 600_000) })).toMatchObject({ ok: false });
    expect(verifyWebhookSignature({ ...base, body: body.replace('"x"', '"y"') })).toEqual({ ok: false, reason: 'signature does not match' });
    expect(verifyWebhookSignature({ ...base, secret: `${SECRET}!` })).toEqual({ ok: false, reason: 'signature does not match' });
    // A replay with a fresh timestamp but the old signature fails: the timestamp is signed too.
    expect(verifyWebhookSignature({ ...base, timestamp: String(NOW_S + 60), now: new Date(NOW.getTime() + 60_000) })).toEqual({
      ok: false,
      reason: 'signature does not match',
    });
    expect(verifyWebhookSignature({ ...base, timestamp: undefined })).toMatchObject({ ok: false });
    expect(verifyWebhookSignature({ ...base, timestamp: '12.5' })).toMatchObject({ ok: false });
    expect(verifyWebhookSignature({ ...base, signature: undefined })).toMatchObject({ ok: false });
    expect(verifyWebhookSignature({ ...base, signature: 'sha256=00' })).toMatchObject({ ok: false });
  });

  it('writes the SMS in German for language "de"', async () => {
    await deliverChallenge(depsWith(webhook()), smsChallenge({ metadata: { language: 'de' } }));
    expect((JSON.parse(receiver.requests[0].body) as SmsWebhookPayload).body).toBe('739204 ist Ihr Bestätigungscode für Acme Shop. Gültig für 5 Minuten.');
  });

  it('retries a non-2xx answer and succeeds on the next attempt', async () => {
    let calls = 0;
    receiver.respond = (_req, res) => void (calls++ === 0 ? res.writeHead(502).end('bad gateway') : res.writeHead(200).end('{}'));
    const receipt = await deliverChallenge(depsWith(webhook()), smsChallenge());
    expect(receipt).toEqual({ channel: 'sms', attempts: 2 });
    expect(receiver.requests).toHaveLength(2);
    // The retry carries the same challengeID, so the receiver can tell it is the same message.
    expect(receiver.requests.map((r) => (JSON.parse(r.body) as SmsWebhookPayload).challengeID)).toEqual([
      'cha-22222222222222222222',
      'cha-22222222222222222222',
    ]);
    expect(sleeps).toEqual([250]);
  });

  it('gives up with delivery_failed naming SMS, and a receiver echoing the message cannot put the code or number into the logs', async () => {
    receiver.respond = (req, res) => void res.writeHead(500).end(`could not send ${req.body}`);
    const err = await deliverChallenge(depsWith(webhook()), smsChallenge()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'unavailable', type: 'delivery_failed' });
    expect((err as Error).message).toBe('could not deliver the sms_otp challenge by SMS: the SMS provider failed 3 times; try again later');
    expect(receiver.requests).toHaveLength(3);
    expect(sleeps).toEqual([250, 1000]);
    const entries = lines.map((l) => JSON.parse(l));
    expect(entries).toHaveLength(3);
    expect(entries[2]).toMatchObject({ channel: 'sms', type: 'sms_otp', attempt: 3, error: expect.stringContaining('SMS webhook answered HTTP 500') });
    const all = lines.join('\n') + String((err as Error).cause);
    expect(all).toContain('[redacted]');
    expect(all).not.toContain('739204');
    expect(all).not.toContain('+4915112345678');
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    receiver.respond = () => undefined;
    const slow = smsWebhookSender({ url: `${receiver.url}/sms`, secret: SECRET, timeoutMs: 200 });
    const err = await deliverChallenge({ ...depsWith(slow), retryDelaysMs: [] }, smsChallenge()).catch((e: unknown) => e);
    expect(err).toMatchObject({ type: 'delivery_failed' });
    expect(String((err as Error).cause)).toContain('no answer within 200 ms');
  });

  it('fails with failed_precondition when no SMS provider is configured', async () => {
    await expect(deliverChallenge(depsWith(undefined), smsChallenge())).rejects.toMatchObject({
      kind: 'failed_precondition',
      type: 'delivery_not_configured',
      message: expect.stringContaining('SMS_WEBHOOK_URL or TWILIO_ACCOUNT_SID'),
    });
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('Twilio', () => {
  const twilio = (from = '+15005550006') => twilioSmsSender({ accountSid: SID, authToken: TOKEN, from, baseUrl: `${receiver.url}/twilio/` });
  const created = (_req: Received, res: ServerResponse) =>
    void res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sid: 'SM123', status: 'queued' }));

  it("POSTs the Messages API's form to the account's Messages.json with Basic auth", async () => {
    receiver.respond = created;
    await deliverChallenge(depsWith(twilio()), smsChallenge());
    expect(receiver.requests).toHaveLength(1);
    const req = receiver.requests[0];
    expect(req.method).toBe('POST');
    expect(req.url).toBe(`/twilio/2010-04-01/Accounts/${SID}/Messages.json`);
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
    const form = new URLSearchParams(req.body);
    expect([...form.keys()]).toEqual(['To', 'From', 'Body']);
    expect(form.get('To')).toBe('+4915112345678');
    expect(form.get('From')).toBe('+15005550006');
    expect(form.get('Body')).toBe('739204 is your Acme Shop verification code. It expires in 5 minutes.');
  });

  it('sends a Messaging Service SID as MessagingServiceSid', async () => {
    receiver.respond = created;
    const service = `MG${'0f'.repeat(16)}`;
    await deliverChallenge(depsWith(twilio(service)), smsChallenge());
    const form = new URLSearchParams(receiver.requests[0].body);
    expect(form.get('MessagingServiceSid')).toBe(service);
    expect(form.has('From')).toBe(false);
  });

  it("retries Twilio's errors and reports its code and message (without the number) when it keeps failing", async () => {
    receiver.respond = (req, res) =>
      void res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ code: 21211, message: `The 'To' number ${new URLSearchParams(req.body).get('To')} is not a valid phone number.`, status: 400 }));
    const err = await deliverChallenge(depsWith(twilio()), smsChallenge()).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'unavailable', type: 'delivery_failed' });
    expect(receiver.requests).toHaveLength(3);
    const last = JSON.parse(lines[2]);
    expect(last.error).toBe("Twilio answered HTTP 400: The 'To' number [redacted] is not a valid phone number. (Twilio error 21211)");
    expect(lines.join('\n')).not.toContain('+4915112345678');
  });

  it('defaults to api.twilio.com', async () => {
    // A 1 ms limit ends the request before it reaches anyone; the error still names where it was going.
    const sender = twilioSmsSender({ accountSid: SID, authToken: TOKEN, from: '+15005550006', timeoutMs: 1 });
    const err = await sender.send({ to: '+4915112345678', body: 'x' }).catch((e: unknown) => e);
    expect(String(err)).toContain('Twilio request to https://api.twilio.com failed');
  });
});
