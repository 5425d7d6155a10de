/**
 * Challenge delivery end to end: B1 through the gateway for a project whose challengeDelivery is
 * "service", with the challenge service sending email to an SMTP server started here (smtp-server,
 * messages parsed with mailparser) and SMS to a local webhook receiver that checks every request's
 * signature. Also: a project that delivers itself ("app") gets no email, and a failed delivery
 * leaves no challenge behind.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { htmlOf, TestSmtp, toOf } from '../../services/challenge/test/testSmtp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature, type SmsWebhookPayload, type WebhookCheck } from '../../services/challenge/src/delivery/index.js';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const APP_NAME = 'Acme Delivery Shop';
const EMAIL_FROM = 'Acme E2E <no-reply@localhost>';
const LINK_URL = 'http://localhost:3000/verify';
const SECRET = randomBytes(32).toString('hex');


interface WebhookRequest {
  headers: IncomingMessage['headers'];
  body: string;
  /** verifyWebhookSignature's verdict on the request as received. */
  check: WebhookCheck;
}

/** The SMS webhook's receiver: records every request with its signature check; answers 500 while `fail` is set. */
class SmsReceiver {
  readonly requests: WebhookRequest[] = [];
  fail = false;
  private server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => {
        const v = req.headers[name.toLowerCase()];
        return Array.isArray(v) ? v[0] : v;
      };
      const check = verifyWebhookSignature({
        secret: SECRET,
        body,
        timestamp: header('X-Passkeyauth-Timestamp'),
        signature: header('X-Passkeyauth-Signature'),
      });
      this.requests.push({ headers: req.headers, body, check });
      if (this.fail) res.writeHead(500, { 'content-type': 'text/plain' }).end('gateway down');
      else res.writeHead(check.ok ? 204 : 401).end();
    });
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/sms`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const smtp = new TestSmtp();
const sms = new SmsReceiver();
let stack: Stack;
/** challengeDelivery "service", with an email link URL. */
let service: ProjectJson;
/** challengeDelivery "app" (the default). */
let app: ProjectJson;
/** Every value B1 returned, to make sure none of them reaches the store. */
const values: string[] = [];

async function backend(project: ProjectJson, path: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method: init.method ?? 'POST',
    headers: { authorization: basic(project), 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** A fresh user of the project, so each case has its own creation limits. */
async function newUser(project: ProjectJson): Promise<string> {
  const r = await backend(project, '/v2/users', { body: { fullName: 'Ada Lovelace', status: 'active' } });
  expect(r.status).toBe(200);
  return r.body.userID as string;
}

function createChallenge(project: ProjectJson, userID: string, challengeType: string, identifierValue: string) {
  return backend(project, `/v2/users/${userID}/challenges`, { body: { challengeType, identifierValue, clientInformation: backendClientInformation } });
}

/** Polls until `find` returns something, for at most `ms` milliseconds. */
async function eventually<T>(what: string, find: () => T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const mailsTo = (address: string) => smtp.received.filter((m) => toOf(m) === address);
const emailTo = (address: string) => eventually(`an email to ${address}`, () => mailsTo(address)[0]);

/**
 * Fails if the stored records hold `value`. A 6-digit code is looked for as a whole JSON string
 * (IDs are digits too and may contain any six of them by chance); a link token anywhere.
 */
function expectNotStored(records: unknown[], value: string) {
  const dump = JSON.stringify(records);
  expect(dump).not.toContain(/^[0-9]{6}$/.test(value) ? `"${value}"` : value);
}

async function storedChallenges(userID: string) {
  return stack.db.collection('challenges').find({ userId: userID }).toArray();
}

beforeAll(async () => {
  await Promise.all([smtp.start(), sms.start()]);
  stack = await startStack({ smtpUrl: smtp.url, emailFrom: EMAIL_FROM, smsWebhookUrl: sms.url, smsWebhookSecret: SECRET });
  service = await stack.createProject('delivery-e2e-service', ['http://localhost:3000'], [
    '--app-name',
    APP_NAME,
    '--challenge-delivery',
    'service',
    '--email-link-url',
    LINK_URL,
  ]);
  app = await stack.createProject('delivery-e2e-app');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await Promise.all([smtp.stop(), sms.stop()]);
});

describe('challengeDelivery "service"', () => {
  it('email_otp: the code arrives by email, naming the app; it completes the challenge once, then 409', async () => {
    const user = await newUser(service);
    const created = await createChallenge(service, user, 'email_otp', ' Otp.Ada@Example.COM ');
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ type: 'email_otp', identifierValue: 'otp.ada@example.com', status: 'pending' });
    const code = created.body.value as string;
    expect(code).toMatch(/^[0-9]{6}$/);
    values.push(code);

    const mail = await emailTo('otp.ada@example.com');
    expect(mail.from?.value[0]).toEqual({ address: 'no-reply@localhost', name: 'Acme E2E' });
    expect(mail.subject).toBe(`${code} is your ${APP_NAME} verification code`);
    expect(mail.text).toContain(`Use this code to verify your email address with ${APP_NAME}:`);
    expect(mail.text).toContain(code);
    expect(htmlOf(mail)).toContain(`>${code}</p>`);
    expect(mailsTo('otp.ada@example.com')).toHaveLength(1);

    const path = `/v2/users/${user}/challenges/${created.body.challengeID}`;
    const ok = await backend(service, path, { method: 'PATCH', body: { value: code } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      challengeID: created.body.challengeID,
      type: 'email_otp',
      identifierValue: 'otp.ada@example.com',
      expires: created.body.expires,
      status: 'completed',
    });
    const again = await backend(service, path, { method: 'PATCH', body: { value: code } });
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe('challenge_already_completed');

    const stored = await storedChallenges(user);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ _id: created.body.challengeID, status: 'completed' });
    expectNotStored(stored, code);
  });

  it("email_link: the email's link points at the project's URL and its token completes the challenge, once", async () => {
    const user = await newUser(service);
    const created = await createChallenge(service, user, 'email_link', 'link.ada@example.com');
    expect(created.status).toBe(200);
    const token = created.body.value as string;
    values.push(token);

    const mail = await emailTo('link.ada@example.com');
    expect(mail.subject).toBe(`Your ${APP_NAME} sign-in link`);
    expect(mail.text).toContain(APP_NAME);
    const match = /http:\/\/localhost:3000\/verify\?\S+/.exec(mail.text ?? '');
    expect(match, mail.text).not.toBeNull();
    const link = new URL(match![0]);
    expect(link.origin + link.pathname).toBe(LINK_URL);
    expect(link.searchParams.get('challengeID')).toBe(created.body.challengeID);
    expect(link.searchParams.get('token')).toBe(token);
    expect(htmlOf(mail)).toContain(`href="${link.toString().replace(/&/g, '&amp;')}"`);

    // What the app's /verify page does with the link: PATCH its token.
    const path = `/v2/users/${user}/challenges/${link.searchParams.get('challengeID')}`;
    const ok = await backend(service, path, { method: 'PATCH', body: { value: link.searchParams.get('token') } });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('completed');
    expect(ok.body).not.toHaveProperty('value');
    const reused = await backend(service, path, { method: 'PATCH', body: { value: link.searchParams.get('token') } });
    expect(reused.status).toBe(409);
    expect(reused.body.error.type).toBe('challenge_already_completed');

    expectNotStored(await storedChallenges(user), token);
  });

  it('sms_otp: the webhook receives a correctly signed request with the code, which completes the challenge', async () => {
    const user = await newUser(service);
    const created = await createChallenge(service, user, 'sms_otp', '+49 151 1234 5678');
    expect(created.status).toBe(200);
    expect(created.body.identifierValue).toBe('+4915112345678');
    const code = created.body.value as string;
    expect(code).toMatch(/^[0-9]{6}$/);
    values.push(code);

    const request = await eventually('the SMS webhook request', () =>
      sms.requests.find((r) => (JSON.parse(r.body) as SmsWebhookPayload).challengeID === created.body.challengeID),
    );
    expect(request.check).toEqual({ ok: true });
    expect(request.headers['content-type']).toBe('application/json');
    const payload = JSON.parse(request.body) as SmsWebhookPayload;
    expect(payload.to).toBe('+4915112345678');
    expect(payload.body).toContain(code);
    expect(payload.body).toContain(APP_NAME);
    // The check is not vacuous: another secret, or a body changed in transit, fails it.
    const signed = { timestamp: request.headers['x-passkeyauth-timestamp'] as string, signature: request.headers['x-passkeyauth-signature'] as string };
    expect(verifyWebhookSignature({ ...signed, secret: randomBytes(32).toString('hex'), body: request.body }).ok).toBe(false);
    expect(verifyWebhookSignature({ ...signed, secret: SECRET, body: request.body.replace('+4915112345678', '+4915100000000') }).ok).toBe(false);

    const smsCode = /\b[0-9]{6}\b/.exec(payload.body)![0];
    expect(smsCode).toBe(code);
    const path = `/v2/users/${user}/challenges/${created.body.challengeID}`;
    const ok = await backend(service, path, { method: 'PATCH', body: { value: smsCode } });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('completed');

    expectNotStored(await storedChallenges(user), code);
  });

  it('a refused email is 503 delivery_failed and leaves no challenge for the user; once the server accepts again, B1 works', async () => {
    const user = await newUser(service);
    const before = smtp.received.length;
    smtp.refuse = true;
    try {
      const failed = await createChallenge(service, user, 'email_otp', 'refused.ada@example.com');
      expect(failed.status).toBe(503);
      expect(failed.body.error.type).toBe('delivery_failed');
      expect(failed.body).not.toHaveProperty('value');
      expect(JSON.stringify(failed.body)).not.toContain('refused.ada@example.com');
    } finally {
      smtp.refuse = false;
    }
    expect(smtp.refused).toBeGreaterThanOrEqual(1);
    expect(smtp.received.length).toBe(before);
    expect(await storedChallenges(user)).toEqual([]);

    const retried = await createChallenge(service, user, 'email_otp', 'refused.ada@example.com');
    expect(retried.status).toBe(200);
    values.push(retried.body.value);
    expect((await emailTo('refused.ada@example.com')).text).toContain(retried.body.value);
    expect((await storedChallenges(user)).map((c) => c._id)).toEqual([retried.body.challengeID]);
  });

  it('a failing SMS webhook is 503 delivery_failed and leaves no challenge for the user', async () => {
    const user = await newUser(service);
    const before = sms.requests.length;
    sms.fail = true;
    try {
      const failed = await createChallenge(service, user, 'sms_otp', '+4915199999999');
      expect(failed.status).toBe(503);
      expect(failed.body.error.type).toBe('delivery_failed');
      expect(failed.body).not.toHaveProperty('value');
    } finally {
      sms.fail = false;
    }
    // The webhook was really called (and signed correctly); it answered 500.
    const attempts = sms.requests.slice(before);
    expect(attempts.length).toBeGreaterThanOrEqual(1);
    for (const a of attempts) expect(a.check).toEqual({ ok: true });
    expect(await storedChallenges(user)).toEqual([]);
  });
});

describe('challengeDelivery "app" (the default)', () => {
  it('B1 returns the value and sends no email', async () => {
    const user = await newUser(app);
    const created = await createChallenge(app, user, 'email_otp', 'app.ada@example.com');
    expect(created.status).toBe(200);
    expect(created.body.value).toMatch(/^[0-9]{6}$/);
    values.push(created.body.value);
    const smsBefore = sms.requests.length;
    const viaSms = await createChallenge(app, user, 'sms_otp', '+4915100000001');
    expect(viaSms.status).toBe(200);
    values.push(viaSms.body.value);

    // A delivered email sent afterwards is the barrier: anything the "app" challenge sent would have arrived before it.
    const barrierUser = await newUser(service);
    const barrier = await createChallenge(service, barrierUser, 'email_otp', 'barrier.ada@example.com');
    expect(barrier.status).toBe(200);
    values.push(barrier.body.value);
    await emailTo('barrier.ada@example.com');
    expect(mailsTo('app.ada@example.com')).toEqual([]);
    expect(sms.requests.length).toBe(smsBefore);

    // Verification works the same way with the value from the response.
    const ok = await backend(app, `/v2/users/${user}/challenges/${created.body.challengeID}`, { method: 'PATCH', body: { value: created.body.value } });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('completed');
  });
});

describe('the store', () => {
  it('never holds a plaintext value', async () => {
    const all = await stack.db.collection('challenges').find({}).toArray();
    // One record per challenge B1 created (the failed deliveries left none), none with its value.
    expect(values).toHaveLength(7);
    expect(all).toHaveLength(values.length);
    for (const value of values) expectNotStored(all, value);
    for (const record of all) expect(Object.keys(record)).not.toContain('value');
  });
});

describe('metrics', () => {
  it('the challenge service counts deliveries by channel and result (challenge_deliveries_total)', async () => {
    const text = await (await fetch(`http://127.0.0.1:${stack.ports.challenge}/metrics`)).text();
    const count = (channel: string, result: string) => {
      const line = text.split('\n').find((l) => l.startsWith('challenge_deliveries_total{') && l.includes(`channel="${channel}"`) && l.includes(`result="${result}"`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    // Every failure above was one message that failed after its retries.
    expect(count('email', 'failed')).toBe(1);
    expect(count('sms', 'failed')).toBe(1);
    expect(count('email', 'sent')).toBeGreaterThanOrEqual(3);
    expect(count('sms', 'sent')).toBeGreaterThanOrEqual(1);
  });
});
