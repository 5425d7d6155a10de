/**
 * VerifyChallenge and GetChallenge: every transition of the state machine (pending → completed,
 * pending → expired by lifetime or by wrong values, completed and expired final), every error,
 * the concurrent race, with the runtime interceptors against MongoDB (the embedded store, or a
 * real one when MONGODB_URI is set), a controllable clock and an in-test ProjectSettingsSource.
 * The core cases run in memory (createRouterTransport) and over HTTP on port 0.
 */
import { Code, type Client } from '@connectrpc/connect';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChallengeService } from '../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { confirmChallengeEvent } from '../src/domain/confirmChallengeEvent.js';
import type { CreateChallengeDeps } from '../src/domain/createChallenge.js';
import { createValueHasher } from '../src/domain/valueHasher.js';
import { mongoRateLimits } from '../src/rateLimits.js';
import { mongoChallengeStore } from '../src/store/challenges.js';
import { as, failure, httpClient, inMemoryClient, openTestDatabase, TestProjectSettings, TestUserDirectory, type TestDatabase, noDelivery } from './support.js';
import { RecordingEventOutbox } from '../../../test/kit/recordingEventOutbox.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const hasher = createValueHasher(Buffer.alloc(32, 9));
/** Limits high enough never to interfere here; challengeRateLimits.test.ts tests them. */
const GENEROUS = { points: 10_000, durationSeconds: 60 };

let db: TestDatabase;
let clock: Date;
let users: TestUserDirectory;
let projects: TestProjectSettings;
let deps: CreateChallengeDeps;
const events = new RecordingEventOutbox();
const locked = () => events.events.filter((e) => e.type === 'challenge.locked');
const clients = {} as Record<'in-memory' | 'http', Client<typeof ChallengeService>>;
let closeHttp: () => Promise<void>;

beforeAll(async () => {
  db = await openTestDatabase();
  users = new TestUserDirectory();
  users.users.add('pro-3/usr-1');
  projects = new TestProjectSettings();
  projects.overrides.set('pro-3', { maxChallengeAttempts: 3 });
  deps = {
    delivery: noDelivery,
    store: mongoChallengeStore(db.store.db),
    users,
    projects,
    limits: mongoRateLimits(db.store.db, {
      creationPerUser: GENEROUS,
      creationPerIdentifier: GENEROUS,
      verificationPerChallenge: GENEROUS,
      verificationPerUser: GENEROUS,
      verificationPerAddress: GENEROUS,
    }),
    hasher,
    events,
    now: () => new Date(clock),
  };
  clients['in-memory'] = inMemoryClient(deps);
  const http = await httpClient(deps, () => db.store.ping());
  clients.http = http.client;
  closeHttp = http.close;
});

afterAll(async () => {
  await closeHttp?.();
  await db?.stop();
});

beforeEach(async () => {
  await db.clear();
  clock = new Date(NOW);
  events.events = [];
  events.failWith = null;
});

const advance = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};

const clientInformation = {
  remoteAddress: '203.0.113.9',
  userAgent: 'Mozilla/5.0',
  userVerifyingPlatformAuthenticatorAvailable: true,
  conditionalMediationAvailable: false,
};

describe.each(['in-memory', 'http'] as const)('VerifyChallenge and GetChallenge (%s)', (name) => {
  let client: Client<typeof ChallengeService>;
  beforeAll(() => {
    client = clients[name];
  });

  /** Creates a challenge and returns its ID and value (the only time the value is seen). */
  async function created(projectId = 'pro-1', over: { challengeType?: string; identifierValue?: string; lifetimeSeconds?: bigint; userId?: string } = {}) {
    const { challenge } = await client.createChallenge(
      {
        userId: over.userId ?? 'usr-1',
        challengeType: over.challengeType ?? 'email_otp',
        identifierValue: over.identifierValue ?? 'ada@example.com',
        clientInformation,
        lifetimeSeconds: over.lifetimeSeconds,
      },
      as(projectId),
    );
    return { id: challenge!.challengeId, value: challenge!.value!, expires: challenge!.expires };
  }

  /** A six-digit code other than the right one. */
  const wrong = (value: string) => String((Number(value) + 1) % 1_000_000).padStart(6, '0');

  describe('pending → completed', () => {
    it('the right value completes the challenge; the answer never carries a value', async () => {
      const c = await created();
      advance(10_000);
      const { challenge } = await client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1'));
      expect(challenge).toMatchObject({ challengeId: c.id, type: 'email_otp', identifierValue: 'ada@example.com', expires: c.expires, status: 'completed' });
      expect(challenge!.value).toBeUndefined();

      const doc = await db.challenges.findOne({ _id: c.id });
      expect(doc).toMatchObject({ status: 'completed', attempts: 0, completedAt: clock });
      expect(JSON.stringify(doc)).not.toContain(c.value);

      const got = await client.getChallenge({ userId: 'usr-1', challengeId: c.id }, as('pro-1'));
      expect(got.challenge).toMatchObject({ challengeId: c.id, status: 'completed', expires: c.expires });
      expect(got.challenge!.value).toBeUndefined();
    });

    it('completes exactly once: a second right value is 409 challenge_already_completed', async () => {
      const c = await created();
      await client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1'));
      const again = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1')));
      expect(again.code).toBe(Code.FailedPrecondition);
      expect(again.info?.type).toBe('challenge_already_completed');
      expect(again.info?.details).toBe(`challenge ${c.id} has already been completed`);
      // A wrong value on a completed challenge is not counted: completed is final.
      const wrongAfter = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-1')));
      expect(wrongAfter.info?.type).toBe('challenge_already_completed');
      expect((await db.challenges.findOne({ _id: c.id }))!.attempts).toBe(0);
    });

    it('two concurrent right values: exactly one completes, the other is 409', async () => {
      for (let round = 0; round < 5; round++) {
        const c = await created();
        const verify = () => client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1'));
        const results = await Promise.allSettled([verify(), verify()]);
        const ok = results.filter((r) => r.status === 'fulfilled');
        const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(ok).toHaveLength(1);
        expect(ok[0].value.challenge!.status).toBe('completed');
        expect(failed).toHaveLength(1);
        const f = await failure(Promise.reject(failed[0].reason));
        expect(f.code).toBe(Code.FailedPrecondition);
        expect(f.info?.type).toBe('challenge_already_completed');
      }
    });

    it('an email link token is single-use by the same rule', async () => {
      const c = await created('pro-1', { challengeType: 'email_link' });
      expect(c.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const { challenge } = await client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1'));
      expect(challenge!.status).toBe('completed');
      expect(challenge!.type).toBe('email_link');
      const replay = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1')));
      expect(replay.code).toBe(Code.FailedPrecondition);
      expect(replay.info?.type).toBe('challenge_already_completed');
    });

    it('an SMS code completes too, and a wrong value before it still leaves it completable', async () => {
      const c = await created('pro-1', { challengeType: 'sms_otp', identifierValue: '+4915112345678' });
      const w = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-1')));
      expect(w.info?.type).toBe('challenge_value_invalid');
      const { challenge } = await client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1'));
      expect(challenge!.status).toBe('completed');
      expect((await db.challenges.findOne({ _id: c.id }))!.attempts).toBe(1);
    });

    it('completed is final: after the lifetime it is still completed, and still 409 (not 410)', async () => {
      const c = await created();
      await client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1'));
      advance(3_600_000);
      expect((await client.getChallenge({ userId: 'usr-1', challengeId: c.id }, as('pro-1'))).challenge!.status).toBe('completed');
      const late = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1')));
      expect(late.info?.type).toBe('challenge_already_completed');
      expect((await db.challenges.findOne({ _id: c.id }))!.status).toBe('completed');
    });
  });

  describe('wrong values and the lockout', () => {
    it('a wrong value is 400 challenge_value_invalid saying how many attempts are left', async () => {
      const c = await created();
      for (const left of [4, 3, 2, 1]) {
        const { code, info, error } = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-1')));
        expect(code).toBe(Code.InvalidArgument);
        expect(info?.type).toBe('challenge_value_invalid');
        expect(info?.details).toBe(`the value is wrong; ${left} attempt(s) left`);
        expect(error.rawMessage).toContain(`${left} attempt(s) left`);
        expect(info?.validation.map((v) => [v.field, v.message])).toEqual([['value', `is wrong; ${left} attempt(s) left`]]);
        expect((await db.challenges.findOne({ _id: c.id }))!.attempts).toBe(5 - left);
      }
      expect((await client.getChallenge({ userId: 'usr-1', challengeId: c.id }, as('pro-1'))).challenge!.status).toBe('pending');
    });

    it('the fifth wrong value (the default limit) expires it: 410 challenge_expired, and then the right value is 410 too', async () => {
      const c = await created();
      for (let i = 0; i < 4; i++) await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-1')));
      const fifth = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-1')));
      expect(fifth.code).toBe(Code.FailedPrecondition);
      expect(fifth.info?.type).toBe('challenge_expired');
      expect(fifth.info?.details).toBe(`challenge ${c.id} has expired: too many wrong values (5 received; the limit is 5)`);
      expect(await db.challenges.findOne({ _id: c.id })).toMatchObject({ status: 'expired', attempts: 5, expiredReason: 'attempts', expiredAt: clock });

      const right = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1')));
      expect(right.code).toBe(Code.FailedPrecondition);
      expect(right.info?.type).toBe('challenge_expired');
      expect(right.info?.details).toContain('too many wrong values');
      expect((await db.challenges.findOne({ _id: c.id }))!.attempts).toBe(5);
      expect((await client.getChallenge({ userId: 'usr-1', challengeId: c.id }, as('pro-1'))).challenge!.status).toBe('expired');
    });

    it('the locking wrong value records challenge.locked once, before the 410: IDs and type, never the value or the identifier', async () => {
      const c = await created('pro-1', { challengeType: 'sms_otp', identifierValue: '+4915112345678' });
      for (let i = 0; i < 4; i++) await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-1')));
      expect(locked()).toEqual([]);
      expect((await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-1', '198.51.100.7')))).info?.type).toBe('challenge_expired');
      // The end user's address the challenge was made for (B1's clientInformation), not the verifying caller's.
      expect(locked()).toEqual([{ projectId: 'pro-1', type: 'challenge.locked', data: { userID: 'usr-1', challengeID: c.id, challengeType: 'sms_otp' }, client: { ip: '203.0.113.9', os: '', browser: '' } }]);
      const json = JSON.stringify(events.events);
      for (const secret of [c.value, wrong(c.value), '+4915112345678', '4915112345678']) expect(json).not.toContain(secret);
      // Attempts on the locked challenge change nothing and record nothing more.
      await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-1')));
      await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1')));
      expect(locked()).toHaveLength(1);
    });

    it('a lock whose event cannot be written is not answered as a 410 (the challenge stays locked)', async () => {
      const c = await created('pro-3');
      for (let i = 0; i < 2; i++) await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-3')));
      events.failWith = new Error('store unavailable');
      const third = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-3')));
      expect(third.info?.type).not.toBe('challenge_expired');
      expect(await db.challenges.findOne({ _id: c.id })).toMatchObject({ status: 'expired', expiredReason: 'attempts', attempts: 3 });
    });

    it("uses the project's own limit (3 for pro-3)", async () => {
      const c = await created('pro-3');
      const first = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-3')));
      expect(first.info?.details).toBe('the value is wrong; 2 attempt(s) left');
      const second = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-3')));
      expect(second.info?.details).toBe('the value is wrong; 1 attempt(s) left');
      const third = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-3')));
      expect(third.info?.type).toBe('challenge_expired');
      expect(third.info?.details).toContain('(3 received; the limit is 3)');
      expect(projects.asked).toContain('pro-3');
    });

    it('a lowered limit applies to pending challenges at once (read from the project on every verification)', async () => {
      const c = await created('pro-2');
      for (let i = 0; i < 2; i++) await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-2')));
      projects.overrides.set('pro-2', { maxChallengeAttempts: 2 });
      try {
        expect((await client.getChallenge({ userId: 'usr-1', challengeId: c.id }, as('pro-2'))).challenge!.status).toBe('expired');
        expect(await db.challenges.findOne({ _id: c.id })).toMatchObject({ status: 'expired', expiredReason: 'attempts', attempts: 2 });
        const right = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-2')));
        expect(right.info?.type).toBe('challenge_expired');
      } finally {
        projects.overrides.delete('pro-2');
      }
    });

    it('concurrent wrong values at the limit never count past it, and all of them fail', async () => {
      const c = await created('pro-3');
      await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-3')));
      const results = await Promise.all(
        Array.from({ length: 4 }, () => failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-3')))),
      );
      const types = results.map((r) => r.info?.type).sort();
      // Exactly one of them was the second wrong value (1 left); the others found the lockout.
      expect(types).toEqual(['challenge_expired', 'challenge_expired', 'challenge_expired', 'challenge_value_invalid']);
      expect(await db.challenges.findOne({ _id: c.id })).toMatchObject({ status: 'expired', attempts: 3 });
      // One of them locked it, so one event.
      expect(locked().map((e) => e.data.challengeID)).toEqual([c.id]);
    });

    it('a right value racing a locking wrong value: one of them wins, the challenge is completed or expired, never both', async () => {
      const c = await created('pro-3');
      for (let i = 0; i < 2; i++) await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-3')));
      const [right, bad] = await Promise.allSettled([
        client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-3')),
        client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-3')),
      ]);
      expect(bad.status).toBe('rejected');
      const doc = (await db.challenges.findOne({ _id: c.id }))!;
      if (right.status === 'fulfilled') {
        expect(doc.status).toBe('completed');
        expect((await failure(Promise.reject((bad as PromiseRejectedResult).reason))).info?.type).toBe('challenge_already_completed');
      } else {
        expect(doc.status).toBe('expired');
        expect((await failure(Promise.reject(right.reason))).info?.type).toBe('challenge_expired');
      }
    });
  });

  describe('pending → expired by lifetime', () => {
    it('is pending until just before expires, expired from expires on (GET writes the expiry)', async () => {
      const c = await created();
      advance(300_000 - 1);
      expect((await client.getChallenge({ userId: 'usr-1', challengeId: c.id }, as('pro-1'))).challenge!.status).toBe('pending');
      expect((await db.challenges.findOne({ _id: c.id }))!.status).toBe('pending');
      advance(1);
      const got = await client.getChallenge({ userId: 'usr-1', challengeId: c.id }, as('pro-1'));
      expect(got.challenge).toMatchObject({ status: 'expired', expires: c.expires });
      expect(await db.challenges.findOne({ _id: c.id })).toMatchObject({ status: 'expired', expiredReason: 'lifetime', expiredAt: clock, attempts: 0 });
    });

    it('a right value just before expires completes; at expires it is 410 challenge_expired naming the lifetime', async () => {
      const early = await created();
      advance(300_000 - 1);
      expect((await client.verifyChallenge({ userId: 'usr-1', challengeId: early.id, value: early.value }, as('pro-1'))).challenge!.status).toBe('completed');

      clock = new Date(NOW);
      const late = await created();
      advance(300_000);
      const { code, info } = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: late.id, value: late.value }, as('pro-1')));
      expect(code).toBe(Code.FailedPrecondition);
      expect(info?.type).toBe('challenge_expired');
      expect(info?.details).toBe(`challenge ${late.id} has expired: its lifetime ended at ${new Date(NOW.getTime() + 300_000).toISOString()}`);
      // PATCH wrote the expiry as well, without counting an attempt.
      expect(await db.challenges.findOne({ _id: late.id })).toMatchObject({ status: 'expired', expiredReason: 'lifetime', attempts: 0 });
    });

    it('a wrong value after the lifetime is 410 too, and is not counted', async () => {
      const c = await created('pro-1', { lifetimeSeconds: 60n });
      advance(61_000);
      const w = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: wrong(c.value) }, as('pro-1')));
      expect(w.info?.type).toBe('challenge_expired');
      expect((await db.challenges.findOne({ _id: c.id }))!.attempts).toBe(0);
    });

    it('expired is final: turning the clock back does not revive it', async () => {
      const c = await created();
      advance(301_000);
      await client.getChallenge({ userId: 'usr-1', challengeId: c.id }, as('pro-1'));
      clock = new Date(NOW);
      expect((await client.getChallenge({ userId: 'usr-1', challengeId: c.id }, as('pro-1'))).challenge!.status).toBe('expired');
      const right = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1')));
      expect(right.info?.type).toBe('challenge_expired');
      expect(right.info?.details).toContain('its lifetime ended');
    });
  });

  describe('not found', () => {
    it("an unknown challenge, another user's and another project's are all 404 challenge_not_found, and change nothing", async () => {
      const c = await created();
      const cases: [string, string, string][] = [
        ['pro-1', 'usr-1', 'cha-12345678901234567890'],
        ['pro-1', 'usr-2', c.id],
        ['pro-2', 'usr-1', c.id],
      ];
      for (const [projectId, userId, challengeId] of cases) {
        for (const value of [c.value, wrong(c.value)]) {
          const v = await failure(client.verifyChallenge({ userId, challengeId, value }, as(projectId)));
          expect(v.code, `${projectId}/${userId}/${challengeId}`).toBe(Code.NotFound);
          expect(v.info?.type).toBe('challenge_not_found');
          expect(v.info?.details).toBe(`challenge ${challengeId} does not exist`);
          // Only rate limits carry a retry time.
          expect(v.info?.retryAfterSeconds).toBe(0);
        }
        const g = await failure(client.getChallenge({ userId, challengeId }, as(projectId)));
        expect(g.code).toBe(Code.NotFound);
        expect(g.info?.type).toBe('challenge_not_found');
        expect(JSON.stringify(g.error.details)).not.toContain('ada@example.com');
      }
      expect(await db.challenges.findOne({ _id: c.id })).toMatchObject({ status: 'pending', attempts: 0 });
      expect((await client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1'))).challenge!.status).toBe('completed');
    });

    it('a deleted user takes its challenges along: 404 afterwards', async () => {
      const c = await created();
      await client.deleteUserChallenges({ userId: 'usr-1' }, as('pro-1'));
      expect((await failure(client.getChallenge({ userId: 'usr-1', challengeId: c.id }, as('pro-1')))).code).toBe(Code.NotFound);
    });
  });

  describe('bad inputs', () => {
    it('a malformed challengeID, userID or an empty / oversized value is InvalidArgument naming the field, before any lookup', async () => {
      const c = await created();
      projects.asked.length = 0;
      const cases: [Record<string, string>, string][] = [
        [{ userId: 'usr-1', challengeId: 'cha-abc', value: '123456' }, 'challengeID'],
        [{ userId: 'usr-1', challengeId: 'challenge-1', value: '123456' }, 'challengeID'],
        [{ userId: 'usr-1', challengeId: `${c.id}'; drop`, value: '123456' }, 'challengeID'],
        [{ userId: 'user-1', challengeId: c.id, value: '123456' }, 'userID'],
        [{ userId: 'usr-1', challengeId: c.id, value: '' }, 'value'],
        [{ userId: 'usr-1', challengeId: c.id, value: 'x'.repeat(257) }, 'value'],
      ];
      for (const [req, field] of cases) {
        const { code, info } = await failure(client.verifyChallenge(req, as('pro-1')));
        expect(code, JSON.stringify(req)).toBe(Code.InvalidArgument);
        expect(info?.type).toBe('validation_error');
        expect(info?.validation.map((v) => v.field)).toEqual([field]);
      }
      const g = await failure(client.getChallenge({ userId: 'usr-1', challengeId: 'cha-' }, as('pro-1')));
      expect(g.code).toBe(Code.InvalidArgument);
      expect(g.info?.validation.map((v) => v.field)).toEqual(['challengeID']);
      expect(projects.asked).toEqual([]);
      expect((await db.challenges.findOne({ _id: c.id }))!.attempts).toBe(0);
    });

    it('without a project header, verification and reads are Unauthenticated', async () => {
      const c = await created();
      expect((await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }))).code).toBe(Code.Unauthenticated);
      expect((await failure(client.getChallenge({ userId: 'usr-1', challengeId: c.id }))).code).toBe(Code.Unauthenticated);
      expect((await db.challenges.findOne({ _id: c.id }))!.status).toBe('pending');
    });
  });

  it('the stored record never holds a plaintext value, neither the right one nor a wrong one', async () => {
    for (const challengeType of ['email_otp', 'email_link', 'sms_otp']) {
      const c = await created('pro-1', { challengeType, identifierValue: challengeType === 'sms_otp' ? '+4915112345678' : 'ada@example.com' });
      const guess = challengeType === 'email_link' ? `${c.value.slice(0, -1)}${c.value.endsWith('A') ? 'B' : 'A'}` : wrong(c.value);
      await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: guess }, as('pro-1')));
      await client.verifyChallenge({ userId: 'usr-1', challengeId: c.id, value: c.value }, as('pro-1'));
      const doc = await db.challenges.findOne({ _id: c.id });
      const stored = JSON.stringify(doc);
      expect(stored).not.toContain(c.value);
      expect(stored).not.toContain(guess);
      expect(doc).not.toHaveProperty('value');
    }
    const limits = JSON.stringify(await db.rateLimits.find({}).toArray());
    expect(limits).not.toContain('ada@example.com');
    expect(limits).not.toContain('+4915112345678');
  });
});

describe('logs', () => {
  it('never contain a challenge value, right or wrong', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const client = inMemoryClient(deps, pino({ level: 'trace' }, sink));
    const { challenge } = await client.createChallenge({ userId: 'usr-1', challengeType: 'email_otp', identifierValue: 'ada@example.com', clientInformation }, as('pro-1'));
    const value = challenge!.value!;
    const guess = String((Number(value) + 1) % 1_000_000).padStart(6, '0');
    await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: challenge!.challengeId, value: guess }, as('pro-1')));
    await client.verifyChallenge({ userId: 'usr-1', challengeId: challenge!.challengeId, value }, as('pro-1'));
    await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: challenge!.challengeId, value }, as('pro-1')));
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const all = lines.join('');
    expect(all).not.toContain(value);
    expect(all).not.toContain(guess);
  });
});

describe('project settings', () => {
  it('an unknown project (settings source says not_found) is 404 project_not_found on verification', async () => {
    users.users.add('pro-9/usr-1');
    const client = clients['in-memory'];
    const { challenge } = await client.createChallenge({ userId: 'usr-1', challengeType: 'email_otp', identifierValue: 'ada@example.com', clientInformation }, as('pro-9'));
    projects.missing.add('pro-9');
    try {
      const f = await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: challenge!.challengeId, value: challenge!.value! }, as('pro-9')));
      expect(f.code).toBe(Code.NotFound);
      expect(f.info?.type).toBe('project_not_found');
      expect((await db.challenges.findOne({ _id: challenge!.challengeId }))!.status).toBe('pending');
    } finally {
      projects.missing.delete('pro-9');
    }
  });
});

describe('the confirmer of challenge events left prepared', () => {
  const entry = (data: Record<string, unknown>, type = 'challenge.locked', projectId = 'pro-1') => ({ _id: 'evt-1', state: 'prepared' as const, projectId, type, occurredAt: clock, data, ip: '', os: '', browser: '' });

  it('confirms challenge.locked only for a challenge of that project and user that expired for its wrong values', async () => {
    const confirm = confirmChallengeEvent(mongoChallengeStore(db.store.db));
    const client = clients['in-memory'];
    const make = async () => (await client.createChallenge({ userId: 'usr-1', challengeType: 'email_otp', identifierValue: 'ada@example.com', clientInformation }, as('pro-3'))).challenge!;
    const c = await make();
    const data = { userID: 'usr-1', challengeID: c.challengeId };
    expect(await confirm(entry(data, 'challenge.locked', 'pro-3'))).toBe(false);
    const wrongValue = String((Number(c.value) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 3; i++) await failure(client.verifyChallenge({ userId: 'usr-1', challengeId: c.challengeId, value: wrongValue }, as('pro-3')));
    expect(await confirm(entry(data, 'challenge.locked', 'pro-3'))).toBe(true);
    expect(await confirm(entry(data, 'challenge.locked', 'pro-1'))).toBe(false);
    expect(await confirm(entry({ ...data, userID: 'usr-2' }, 'challenge.locked', 'pro-3'))).toBe(false);
    expect(await confirm(entry(data, 'user.created', 'pro-3'))).toBe(false);
    // Expired by its lifetime is no lock.
    const old = await make();
    advance(3600_000);
    await client.getChallenge({ userId: 'usr-1', challengeId: old.challengeId }, as('pro-3'));
    expect(await confirm(entry({ userID: 'usr-1', challengeID: old.challengeId }, 'challenge.locked', 'pro-3'))).toBe(false);
  });
});
