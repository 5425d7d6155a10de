/**
 * Rate limits on rate-limiter-flexible's MongoDB store (the embedded store, or a real one when
 * MONGODB_URI is set), with small limits: creation per user and per identifier, verification per
 * challenge and per client address. Exceeding one is ResourceExhausted `rate_limited` with
 * ErrorInfo.retryAfterSeconds; a blocked verification is never counted as a wrong value.
 */
import { Code, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChallengeService } from '../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import type { CreateChallengeDeps } from '../src/domain/createChallenge.js';
import type { RateLimitConfig } from '../src/domain/rateLimits.js';
import { createValueHasher } from '../src/domain/valueHasher.js';
import { mongoRateLimits } from '../src/rateLimits.js';
import { mongoChallengeStore } from '../src/store/challenges.js';
import { as, failure, httpClient, inMemoryClient, openTestDatabase, TestProjectSettings, TestUserDirectory, type TestDatabase, noDelivery } from './support.js';
import { RecordingEventOutbox } from '../../../test/kit/recordingEventOutbox.js';

const LIMITS: RateLimitConfig = {
  creationPerUser: { points: 2, durationSeconds: 60 },
  creationPerIdentifier: { points: 3, durationSeconds: 60 },
  verificationPerChallenge: { points: 3, durationSeconds: 2 },
  verificationPerUser: { points: 6, durationSeconds: 60 },
  verificationPerAddress: { points: 4, durationSeconds: 60 },
};

let db: TestDatabase;
let users: TestUserDirectory;
let deps: CreateChallengeDeps;
let client: Client<typeof ChallengeService>;

beforeAll(async () => {
  db = await openTestDatabase();
  users = new TestUserDirectory();
  for (const u of ['usr-4', 'usr-5', 'usr-6']) users.users.add(`pro-1/${u}`);
  deps = {
    delivery: noDelivery,
    store: mongoChallengeStore(db.store.db),
    users,
    projects: new TestProjectSettings(),
    limits: mongoRateLimits(db.store.db, LIMITS),
    hasher: createValueHasher(Buffer.alloc(32, 5)),
    events: new RecordingEventOutbox(),
    now: () => new Date(),
  };
  client = inMemoryClient(deps);
});
afterAll(async () => db?.stop());
beforeEach(async () => {
  await db.clear();
  users.asked.length = 0;
});

/** Each challenge is created for an end user at an address of its own, unless a test names one. */
let lastAddress = 0;
const clientInformation = (remoteAddress = `203.0.113.${++lastAddress % 250}`) => ({ remoteAddress, userAgent: 'Mozilla/5.0', userVerifyingPlatformAuthenticatorAvailable: false, conditionalMediationAvailable: false });
const create = (userId: string, identifierValue: string, projectId = 'pro-1', endUserAddress?: string) =>
  client.createChallenge({ userId, challengeType: 'email_otp', identifierValue, clientInformation: clientInformation(endUserAddress) }, as(projectId));
/** The application's server: the caller of every backend-API verification. */
const APP_SERVER = '10.1.2.3';
/** A challenge as created before challenges kept the end user's address. */
const withoutAddress = (challengeId: string) => db.challenges.updateOne({ _id: challengeId }, { $unset: { clientAddress: '' } });
const wrong = (value: string) => String((Number(value) + 1) % 1_000_000).padStart(6, '0');

/** Asserts a 429-to-be: ResourceExhausted, type rate_limited, 0 < retryAfterSeconds ≤ window. */
async function expectLimited(p: Promise<unknown>, windowSeconds: number, message: string) {
  const { code, info } = await failure(p);
  expect(code).toBe(Code.ResourceExhausted);
  expect(info?.type).toBe('rate_limited');
  expect(info?.retryAfterSeconds).toBeGreaterThan(0);
  expect(info?.retryAfterSeconds).toBeLessThanOrEqual(windowSeconds);
  expect(info?.details).toContain(message);
  expect(info?.details).toContain(`retry in ${info?.retryAfterSeconds} second(s)`);
}

describe('creation', () => {
  it('per user: the third challenge within the window is rate_limited and not stored; other users are not affected', async () => {
    await create('usr-1', 'a@example.com');
    await create('usr-1', 'b@example.com');
    await expectLimited(create('usr-1', 'c@example.com'), 60, 'too many challenges for user usr-1');
    expect(await db.challenges.countDocuments({})).toBe(2);
    // Counted before the user lookup: the blocked call never asked for the user.
    expect(users.asked).toEqual(['pro-1/usr-1', 'pro-1/usr-1']);
    await create('usr-2', 'c@example.com');
    // The same user ID in another project has its own count.
    await create('usr-1', 'd@example.com', 'pro-2');
  });

  it('per identifier (normalized), across users: the fourth challenge for one address is rate_limited', async () => {
    await create('usr-1', 'ada@example.com');
    await create('usr-2', 'ADA@example.com ');
    await create('usr-4', ' Ada@Example.com');
    await expectLimited(create('usr-5', 'ada@example.com'), 60, 'too many challenges for this identifier');
    expect(await db.challenges.countDocuments({ identifierValue: 'ada@example.com' })).toBe(3);
    // Another identifier, and the same identifier in another project, are not affected.
    await create('usr-6', 'grace@example.com');
    await create('usr-1', 'ada@example.com', 'pro-2');
  });

  it('invalid input is rejected before it is counted', async () => {
    for (let i = 0; i < 3; i++) {
      const bad = await failure(client.createChallenge({ userId: 'usr-1', challengeType: 'sms_otp', identifierValue: 'not-a-phone', clientInformation: clientInformation() }, as('pro-1')));
      expect(bad.code).toBe(Code.InvalidArgument);
    }
    await create('usr-1', 'a@example.com');
    await create('usr-1', 'b@example.com');
  });
});

describe('verification', () => {
  it('per challenge: the fourth attempt within the window is rate_limited and not counted as a wrong value; after the window the right value completes', async () => {
    const { challenge } = await create('usr-1', 'ada@example.com');
    const id = challenge!.challengeId;
    const value = challenge!.value!;
    // Only the per-challenge limit is under test: no address to count by.
    await withoutAddress(id);
    for (let i = 0; i < 3; i++) {
      expect((await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: id, value: wrong(value) }, as('pro-1')))).info?.type).toBe('challenge_value_invalid');
    }
    await expectLimited(client.verifyChallenge({ userId: 'usr-1', challengeId: id, value: wrong(value) }, as('pro-1')), 2, `too many verification attempts for challenge ${id}`);
    // Even the right value is blocked while the limit holds, and neither blocked call touched the record.
    await expectLimited(client.verifyChallenge({ userId: 'usr-1', challengeId: id, value }, as('pro-1')), 2, 'too many verification attempts');
    expect(await db.challenges.findOne({ _id: id })).toMatchObject({ status: 'pending', attempts: 3 });

    await new Promise((resolve) => setTimeout(resolve, 2100));
    const { challenge: done } = await client.verifyChallenge({ userId: 'usr-1', challengeId: id, value }, as('pro-1'));
    expect(done!.status).toBe('completed');
    expect((await db.challenges.findOne({ _id: id }))!.attempts).toBe(3);
  });

  it('per end-user address (the one B1 named): the fifth attempt for challenges created for one address is rate_limited, whoever calls; other addresses are not', async () => {
    const address = '198.51.100.23';
    const a = (await create('usr-1', 'a@example.com', 'pro-1', address)).challenge!;
    const b = (await create('usr-2', 'b@example.com', 'pro-1', address)).challenge!;
    const c = (await create('usr-4', 'c@example.com', 'pro-1', address)).challenge!;
    const d = (await create('usr-5', 'd@example.com', 'pro-1', '198.51.100.24')).challenge!;
    for (const ch of [a, a, b, b]) {
      await failure(client.verifyChallenge({ userId: ch.challengeId === a.challengeId ? 'usr-1' : 'usr-2', challengeId: ch.challengeId, value: wrong(ch.value!) }, as('pro-1', APP_SERVER)));
    }
    await expectLimited(client.verifyChallenge({ userId: 'usr-4', challengeId: c.challengeId, value: c.value! }, as('pro-1', APP_SERVER)), 60, 'too many verification attempts from this address');
    expect((await db.challenges.findOne({ _id: c.challengeId }))!.status).toBe('pending');
    // The application's server is not the one guessing: another end user's challenge verifies
    // through the same server, and so does the same address in another project.
    const ok = await client.verifyChallenge({ userId: 'usr-5', challengeId: d.challengeId, value: d.value! }, as('pro-1', APP_SERVER));
    expect(ok.challenge!.status).toBe('completed');
    const elsewhere = (await create('usr-1', 'a@example.com', 'pro-2', address)).challenge!;
    expect((await client.verifyChallenge({ userId: 'usr-1', challengeId: elsewhere.challengeId, value: elsewhere.value! }, as('pro-2', APP_SERVER))).challenge!.status).toBe('completed');
  });

  it("unknown challenge IDs count against the caller's address: guessing IDs is limited too", async () => {
    const guesser = '198.51.100.77';
    for (let i = 0; i < LIMITS.verificationPerAddress.points; i++) {
      expect((await failure(client.verifyChallenge({ userId: 'usr-4', challengeId: `cha-${i + 1}`, value: '000000' }, as('pro-1', guesser)))).code).toBe(Code.NotFound);
    }
    await expectLimited(client.verifyChallenge({ userId: 'usr-4', challengeId: 'cha-99', value: '000000' }, as('pro-1', guesser)), 60, 'from this address');
  });

  it('per user: the seventh attempt for one user within the window is rate_limited, across challenges and addresses', async () => {
    const attempts: { challengeId: string; value: string }[] = [];
    for (const e of ['a@example.com', 'b@example.com']) attempts.push((await create('usr-6', e)).challenge! as { challengeId: string; value: string });
    for (const c of attempts) {
      for (let i = 0; i < 3; i++) expect((await failure(client.verifyChallenge({ userId: 'usr-6', challengeId: c.challengeId, value: wrong(c.value) }, as('pro-1', APP_SERVER)))).info?.type).toBe('challenge_value_invalid');
    }
    // Wait out the per-challenge window, so only the per-user limit can block.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const first = attempts[0];
    await expectLimited(client.verifyChallenge({ userId: 'usr-6', challengeId: first.challengeId, value: first.value }, as('pro-1', APP_SERVER)), 60, 'too many verification attempts for user usr-6');
    expect((await db.challenges.findOne({ _id: first.challengeId }))).toMatchObject({ status: 'pending', attempts: 3 });
  });

  it('a challenge created before challenges kept an address, verified without a caller address: only the per-challenge and per-user limits apply', async () => {
    const challenges = [];
    for (const [u, e] of [['usr-1', 'a@example.com'], ['usr-2', 'b@example.com']] as const) {
      const c = (await create(u, e, 'pro-1', '198.51.100.50')).challenge!;
      await withoutAddress(c.challengeId);
      challenges.push({ userId: u, c });
    }
    let attempts = 0;
    for (const { userId, c } of challenges) {
      for (let i = 0; i < 3; i++) {
        expect((await failure(client.verifyChallenge({ userId, challengeId: c.challengeId, value: wrong(c.value!) }, as('pro-1')))).info?.type).toBe('challenge_value_invalid');
        attempts++;
      }
    }
    expect(attempts).toBeGreaterThan(LIMITS.verificationPerAddress.points);
  });

  it("over HTTP, a challenge without an address of its own is limited by the caller's address as the gateway sends it", async () => {
    const http = await httpClient(deps, () => db.store.ping());
    try {
      const c = (await create('usr-1', 'a@example.com')).challenge!;
      const d = (await create('usr-2', 'b@example.com')).challenge!;
      await withoutAddress(c.challengeId);
      await withoutAddress(d.challengeId);
      const address = '2001:db8::7';
      for (let i = 0; i < 3; i++) await failure(http.client.verifyChallenge({ userId: 'usr-1', challengeId: c.challengeId, value: wrong(c.value!) }, as('pro-1', address)));
      await failure(http.client.verifyChallenge({ userId: 'usr-2', challengeId: d.challengeId, value: wrong(d.value!) }, as('pro-1', address)));
      await expectLimited(http.client.verifyChallenge({ userId: 'usr-2', challengeId: d.challengeId, value: d.value! }, as('pro-1', address)), 60, 'from this address');
    } finally {
      await http.close();
    }
  });
});

describe('limit documents', () => {
  it('hold neither identifiers nor addresses in plain text, and expire', async () => {
    await create('usr-1', 'ada@example.com');
    const c = (await create('usr-2', 'grace@example.com', 'pro-1', '198.51.100.99')).challenge!;
    await client.verifyChallenge({ userId: 'usr-2', challengeId: c.challengeId, value: c.value! }, as('pro-1', APP_SERVER));
    const docs = await db.rateLimits.find({}).toArray();
    // Two creations (per user, per identifier) and one verification (per address, user, challenge).
    expect(docs.length).toBe(7);
    const text = JSON.stringify(docs);
    for (const secret of ['ada@example.com', 'grace@example.com', '198.51.100.99', APP_SERVER, c.value!]) expect(text).not.toContain(secret);
    for (const d of docs) expect(d.expire).toBeInstanceOf(Date);
  });
});
