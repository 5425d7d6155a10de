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

const LIMITS: RateLimitConfig = {
  creationPerUser: { points: 2, durationSeconds: 60 },
  creationPerIdentifier: { points: 3, durationSeconds: 60 },
  verificationPerChallenge: { points: 3, durationSeconds: 2 },
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
    now: () => new Date(),
  };
  client = inMemoryClient(deps);
});
afterAll(async () => db?.stop());
beforeEach(async () => {
  await db.clear();
  users.asked.length = 0;
});

const clientInformation = { remoteAddress: '203.0.113.9', userAgent: 'Mozilla/5.0', userVerifyingPlatformAuthenticatorAvailable: false, conditionalMediationAvailable: false };
const create = (userId: string, identifierValue: string, projectId = 'pro-1') =>
  client.createChallenge({ userId, challengeType: 'email_otp', identifierValue, clientInformation }, as(projectId));
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
      const bad = await failure(client.createChallenge({ userId: 'usr-1', challengeType: 'sms_otp', identifierValue: 'not-a-phone', clientInformation }, as('pro-1')));
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

  it('per client address: the fifth attempt from one address is rate_limited, across challenges; other addresses and calls without one are not', async () => {
    const a = (await create('usr-1', 'a@example.com')).challenge!;
    const b = (await create('usr-2', 'b@example.com')).challenge!;
    const c = (await create('usr-4', 'c@example.com')).challenge!;
    const address = '198.51.100.23';
    for (const ch of [a, a, b, b]) {
      await failure(client.verifyChallenge({ userId: ch.challengeId === a.challengeId ? 'usr-1' : 'usr-2', challengeId: ch.challengeId, value: wrong(ch.value!) }, as('pro-1', address)));
    }
    await expectLimited(client.verifyChallenge({ userId: 'usr-4', challengeId: c.challengeId, value: c.value! }, as('pro-1', address)), 60, 'too many verification attempts from this address');
    // Unknown challenges from that address are blocked as well: guessing IDs is limited too.
    await expectLimited(client.verifyChallenge({ userId: 'usr-4', challengeId: 'cha-1', value: '000000' }, as('pro-1', address)), 60, 'from this address');
    expect((await db.challenges.findOne({ _id: c.challengeId }))!.status).toBe('pending');
    // Another address, and the same address in another project, are counted apart.
    const ok = await client.verifyChallenge({ userId: 'usr-4', challengeId: c.challengeId, value: c.value! }, as('pro-1', '198.51.100.24'));
    expect(ok.challenge!.status).toBe('completed');
    expect((await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.challengeId, value: '000000' }, as('pro-2', address)))).code).toBe(Code.NotFound);
  });

  it('without a client address only the per-challenge limit applies', async () => {
    const challenges = [];
    for (const [u, e] of [['usr-1', 'a@example.com'], ['usr-2', 'b@example.com']] as const) challenges.push({ userId: u, c: (await create(u, e)).challenge! });
    let attempts = 0;
    for (const { userId, c } of challenges) {
      for (let i = 0; i < 3; i++) {
        expect((await failure(client.verifyChallenge({ userId, challengeId: c.challengeId, value: wrong(c.value!) }, as('pro-1')))).info?.type).toBe('challenge_value_invalid');
        attempts++;
      }
    }
    expect(attempts).toBeGreaterThan(LIMITS.verificationPerAddress.points);
  });

  it('the address limit also holds over HTTP, where the header travels as the gateway sends it', async () => {
    const http = await httpClient(deps, () => db.store.ping());
    try {
      const c = (await create('usr-1', 'a@example.com')).challenge!;
      const address = '2001:db8::7';
      for (let i = 0; i < 3; i++) await failure(http.client.verifyChallenge({ userId: 'usr-1', challengeId: c.challengeId, value: wrong(c.value!) }, as('pro-1', address)));
      const d = (await create('usr-2', 'b@example.com')).challenge!;
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
    const c = (await create('usr-2', 'grace@example.com')).challenge!;
    await client.verifyChallenge({ userId: 'usr-2', challengeId: c.challengeId, value: c.value! }, as('pro-1', '198.51.100.99'));
    const docs = await db.rateLimits.find({}).toArray();
    expect(docs.length).toBe(6);
    const text = JSON.stringify(docs);
    for (const secret of ['ada@example.com', 'grace@example.com', '198.51.100.99', c.value!]) expect(text).not.toContain(secret);
    for (const d of docs) expect(d.expire).toBeInstanceOf(Date);
  });
});
