/**
 * The internal RPCs the frontend flows call: CreateAndDeliverChallenge (creates, delivers, never
 * returns the value) and SendNotification ("a passkey was added"). In memory behind the runtime
 * interceptors, against MongoDB (embedded, or MONGODB_URI), with the real nodemailer adapter
 * sending into an SMTP server started here (smtp-server, messages parsed with mailparser).
 */
import { isFieldSet, toBinary, toJson } from '@bufbuild/protobuf';
import { Code, type Client } from '@connectrpc/connect';
import { htmlOf, TestSmtp, toOf } from './testSmtp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ChallengeSchema,
  CreateAndDeliverChallengeResponseSchema,
  type ChallengeService,
} from '../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { smtpEmailSender, type DeliveryDeps, type SmsMessage, type SmtpEmailSender } from '../src/delivery/index.js';
import type { CreateChallengeDeps } from '../src/domain/createChallenge.js';
import { createValueHasher } from '../src/domain/valueHasher.js';
import { mongoRateLimits } from '../src/rateLimits.js';
import { mongoChallengeStore } from '../src/store/challenges.js';
import { as, failure, inMemoryClient, noDelivery, openTestDatabase, silent, TestProjectSettings, TestUserDirectory, type TestDatabase } from './support.js';
import { RecordingEventOutbox } from '../../../test/kit/recordingEventOutbox.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const hasher = createValueHasher(Buffer.alloc(32, 5));
/** Limits high enough never to interfere here; challengeRateLimits.test.ts tests them. */
const GENEROUS = { points: 10_000, durationSeconds: 60 };


const smtp = new TestSmtp();
/** SMS messages "sent" (an in-test SmsSender; deliverySms.test.ts covers the real adapters). */
const texts: SmsMessage[] = [];
let sender: SmtpEmailSender;
let db: TestDatabase;
let projects: TestProjectSettings;
let deps: CreateChallengeDeps;
let client: Client<typeof ChallengeService>;
/** The same service with no email or SMS sender configured. */
let unconfigured: Client<typeof ChallengeService>;

beforeAll(async () => {
  await smtp.start();
  sender = smtpEmailSender(smtp.url, 'Passkey Demo <no-reply@localhost>', { timeoutMs: 5000 });
  db = await openTestDatabase();
  projects = new TestProjectSettings();
  // pro-1 lets the application deliver B1 challenges (the default); pro-2 has the service deliver them.
  projects.overrides.set('pro-1', { appName: 'Acme Shop', challengeDelivery: 'app' });
  projects.overrides.set('pro-2', { appName: 'Other Shop', challengeDelivery: 'service', emailLinkUrl: 'https://app.example.com/verify' });
  const delivery: DeliveryDeps = {
    email: sender,
    sms: { send: async (message) => void texts.push(message) },
    logger: silent,
    now: () => new Date(NOW),
    // Retries without waiting.
    sleep: async () => undefined,
  };
  deps = {
    delivery,
    store: mongoChallengeStore(db.store.db),
    users: new TestUserDirectory(),
    projects,
    limits: mongoRateLimits(db.store.db, {
      creationPerUser: GENEROUS,
      creationPerIdentifier: GENEROUS,
      verificationPerChallenge: GENEROUS,
      verificationPerUser: GENEROUS,
      verificationPerAddress: GENEROUS,
    }),
    hasher,
    events: new RecordingEventOutbox(),
    now: () => new Date(NOW),
  };
  client = inMemoryClient(deps);
  unconfigured = inMemoryClient({ ...deps, delivery: noDelivery });
});

afterAll(async () => {
  sender?.close();
  await db?.stop();
  await smtp.stop();
});

beforeEach(async () => {
  await db.clear();
  smtp.received.length = 0;
  smtp.refuse = false;
  smtp.refused = 0;
  texts.length = 0;
});

const codeIn = (text: string | undefined) => /\b[0-9]{6}\b/.exec(text ?? '')?.[0];

describe('CreateAndDeliverChallenge', () => {
  it('emails the code and returns the challenge without its value; the emailed code verifies', async () => {
    const res = await client.createAndDeliverChallenge(
      { userId: 'usr-1', challengeType: 'email_otp', identifierValue: ' Ada@Example.COM ' },
      as('pro-1'),
    );
    const challenge = res.challenge!;
    expect(challenge.challengeId).toMatch(/^cha-[0-9]+$/);
    expect(challenge).toMatchObject({ type: 'email_otp', identifierValue: 'ada@example.com', status: 'pending', expires: BigInt(NOW.getTime() / 1000 + 300) });
    // No value: not set, not on the wire, not in JSON.
    expect(challenge.value).toBeUndefined();
    expect(isFieldSet(challenge, ChallengeSchema.field.value)).toBe(false);
    expect(toJson(CreateAndDeliverChallengeResponseSchema, res)).not.toHaveProperty('challenge.value');

    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0];
    expect(toOf(mail)).toBe('ada@example.com');
    const code = codeIn(mail.subject);
    expect(code).toMatch(/^[0-9]{6}$/);
    expect(mail.subject).toBe(`${code} is your Acme Shop verification code`);
    expect(mail.text).toContain('Use this code to verify your email address with Acme Shop:');
    expect(htmlOf(mail)).toContain(`>${code}</p>`);
    expect(Buffer.from(toBinary(CreateAndDeliverChallengeResponseSchema, res)).toString('latin1')).not.toContain(code);

    const stored = await db.challenges.findOne({ _id: challenge.challengeId });
    expect(stored).toMatchObject({ projectId: 'pro-1', userId: 'usr-1', status: 'pending', attempts: 0 });
    expect(JSON.stringify(stored)).not.toContain(`"${code}"`);

    const verified = await client.verifyChallenge({ userId: 'usr-1', challengeId: challenge.challengeId, value: code! }, as('pro-1'));
    expect(verified.challenge).toMatchObject({ challengeId: challenge.challengeId, status: 'completed' });
    expect(verified.challenge?.value).toBeUndefined();
  });

  it("delivers for a project whose challengeDelivery is 'app', where B1 does not", async () => {
    expect((await projects.get('pro-1')).challengeDelivery).toBe('app');
    const b1 = await client.createChallenge(
      {
        userId: 'usr-1',
        challengeType: 'email_otp',
        identifierValue: 'b1@example.com',
        clientInformation: {
          remoteAddress: '203.0.113.9',
          userAgent: 'Mozilla/5.0',
          userVerifyingPlatformAuthenticatorAvailable: true,
          conditionalMediationAvailable: false,
        },
      },
      as('pro-1'),
    );
    expect(b1.challenge?.value).toMatch(/^[0-9]{6}$/);
    expect(smtp.received).toHaveLength(0);

    await client.createAndDeliverChallenge({ userId: 'usr-2', challengeType: 'email_otp', identifierValue: 'grace@example.com' }, as('pro-1'));
    expect(smtp.received.map(toOf)).toEqual(['grace@example.com']);
  });

  it('delivers an email link whose token verifies, once', async () => {
    const res = await client.createAndDeliverChallenge(
      {
        userId: 'usr-1',
        challengeType: 'email_link',
        identifierValue: 'ada@example.com',
        challengeMetadata: { linkUrl: 'http://localhost:3000/verify?from=signup' },
      },
      as('pro-1'),
    );
    expect(res.challenge?.value).toBeUndefined();
    const mail = smtp.received[0];
    expect(mail.subject).toBe('Your Acme Shop sign-in link');
    const link = new URL(/http:\/\/localhost:3000\/verify\?\S+/.exec(mail.text ?? '')![0]);
    expect(link.searchParams.get('from')).toBe('signup');
    expect(link.searchParams.get('challengeID')).toBe(res.challenge!.challengeId);
    const token = link.searchParams.get('token')!;
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(JSON.stringify(await db.challenges.findOne({ _id: res.challenge!.challengeId }))).not.toContain(token);

    const verified = await client.verifyChallenge({ userId: 'usr-1', challengeId: res.challenge!.challengeId, value: token }, as('pro-1'));
    expect(verified.challenge?.status).toBe('completed');
    const again = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: res.challenge!.challengeId, value: token }, as('pro-1')));
    expect(again.code).toBe(Code.FailedPrecondition);
    expect(again.info?.type).toBe('challenge_already_completed');
  });

  it("uses the project's email link URL when the challenge names none", async () => {
    const res = await client.createAndDeliverChallenge({ userId: 'usr-1', challengeType: 'email_link', identifierValue: 'ada@example.com' }, as('pro-2'));
    const link = new URL(/https:\/\/\S+/.exec(smtp.received[0].text ?? '')![0]);
    expect(link.origin + link.pathname).toBe('https://app.example.com/verify');
    expect(link.searchParams.get('challengeID')).toBe(res.challenge!.challengeId);
    expect(smtp.received[0].subject).toBe('Your Other Shop sign-in link');
  });

  it('texts an SMS code, which verifies', async () => {
    const res = await client.createAndDeliverChallenge({ userId: 'usr-1', challengeType: 'sms_otp', identifierValue: '+49 151 1234 5678' }, as('pro-1'));
    expect(res.challenge?.identifierValue).toBe('+4915112345678');
    expect(res.challenge?.value).toBeUndefined();
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatchObject({ to: '+4915112345678', challengeId: res.challenge!.challengeId });
    expect(texts[0].body).toContain('Acme Shop');
    const code = codeIn(texts[0].body)!;
    const verified = await client.verifyChallenge({ userId: 'usr-1', challengeId: res.challenge!.challengeId, value: code }, as('pro-1'));
    expect(verified.challenge?.status).toBe('completed');
  });

  it('a refused email is Unavailable delivery_failed, and the challenge is gone', async () => {
    smtp.refuse = true;
    const err = await failure(client.createAndDeliverChallenge({ userId: 'usr-1', challengeType: 'email_otp', identifierValue: 'ada@example.com' }, as('pro-1')));
    expect(err.code).toBe(Code.Unavailable);
    expect(err.info?.type).toBe('delivery_failed');
    expect(smtp.refused).toBeGreaterThanOrEqual(1);
    expect(smtp.received).toHaveLength(0);
    expect(await db.challenges.countDocuments({ userId: 'usr-1' })).toBe(0);
  });

  it('an unknown user is NotFound, and nothing is sent', async () => {
    const err = await failure(client.createAndDeliverChallenge({ userId: 'usr-404', challengeType: 'email_otp', identifierValue: 'ada@example.com' }, as('pro-1')));
    expect(err.code).toBe(Code.NotFound);
    expect(err.info?.type).toBe('user_not_found');
    expect(smtp.received).toHaveLength(0);
  });

  it('without a sender for the channel it is FailedPrecondition delivery_not_configured, and nothing is stored', async () => {
    for (const [challengeType, identifierValue] of [
      ['email_otp', 'ada@example.com'],
      ['email_link', 'ada@example.com'],
      ['sms_otp', '+4915112345678'],
    ]) {
      // pro-2 has an email link URL, so only the missing sender stands in the way.
      const err = await failure(unconfigured.createAndDeliverChallenge({ userId: 'usr-1', challengeType, identifierValue }, as('pro-2')));
      expect(err.code, challengeType).toBe(Code.FailedPrecondition);
      expect(err.info?.type, challengeType).toBe('delivery_not_configured');
    }
    expect(await db.challenges.countDocuments({})).toBe(0);
    expect(smtp.received).toHaveLength(0);
    expect(texts).toHaveLength(0);
  });
});

describe('SendNotification', () => {
  it('emails that a passkey was added, naming the app, the passkey and the device', async () => {
    await client.sendNotification(
      { userId: 'usr-1', email: 'ada@example.com', kind: 'passkey_added', details: { passkeyName: 'iCloud Keychain', device: 'Safari 17 on macOS' } },
      as('pro-1'),
    );
    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0];
    expect(toOf(mail)).toBe('ada@example.com');
    expect(mail.from?.value[0]).toEqual({ address: 'no-reply@localhost', name: 'Passkey Demo' });
    expect(mail.subject).toBe('A passkey was added to your Acme Shop account');
    expect(mail.text).toContain('A new passkey was just added to your Acme Shop account.');
    expect(mail.text).toContain('Passkey: iCloud Keychain');
    expect(mail.text).toContain('Device: Safari 17 on macOS');
    expect(htmlOf(mail)).toContain('Acme Shop');
  });

  it("writes German when details.language is 'de', with the other project's app name", async () => {
    await client.sendNotification(
      { userId: 'usr-1', email: 'ada@example.com', kind: 'passkey_added', details: { passkeyName: 'YubiKey 5', language: 'de' } },
      as('pro-2'),
    );
    const mail = smtp.received[0];
    expect(mail.subject).toBe('Neuer Passkey für Ihr Other Shop-Konto');
    expect(mail.text).toContain('Other Shop');
    expect(mail.text).toContain('Passkey: YubiKey 5');
    expect(mail.text).not.toContain('Gerät');
  });

  it('an invalid email address is InvalidArgument naming the field, and nothing is sent', async () => {
    const err = await failure(client.sendNotification({ userId: 'usr-1', email: 'not-an-address', kind: 'passkey_added', details: {} }, as('pro-1')));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.info?.validation).toEqual([expect.objectContaining({ field: 'email' })]);
    expect(smtp.received).toHaveLength(0);
  });

  it('an unknown kind is InvalidArgument', async () => {
    const err = await failure(client.sendNotification({ userId: 'usr-1', email: 'ada@example.com', kind: 'password_changed', details: {} }, as('pro-1')));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(smtp.received).toHaveLength(0);
  });

  it('a refused email is Unavailable delivery_failed', async () => {
    smtp.refuse = true;
    const err = await failure(client.sendNotification({ userId: 'usr-1', email: 'ada@example.com', kind: 'passkey_added', details: {} }, as('pro-1')));
    expect(err.code).toBe(Code.Unavailable);
    expect(err.info?.type).toBe('delivery_failed');
  });

  it('without SMTP it is FailedPrecondition delivery_not_configured', async () => {
    const err = await failure(unconfigured.sendNotification({ userId: 'usr-1', email: 'ada@example.com', kind: 'passkey_added', details: {} }, as('pro-1')));
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(err.info?.type).toBe('delivery_not_configured');
  });

  it('an unknown project is NotFound', async () => {
    projects.missing.add('pro-9');
    const err = await failure(client.sendNotification({ userId: 'usr-1', email: 'ada@example.com', kind: 'passkey_added', details: {} }, as('pro-9')));
    expect(err.code).toBe(Code.NotFound);
    expect(err.info?.type).toBe('project_not_found');
    expect(smtp.received).toHaveLength(0);
  });
});
