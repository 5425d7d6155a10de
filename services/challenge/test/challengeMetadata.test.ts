/**
 * challengeMetadata on CreateChallenge: linkUrl (email_link only, on one of the project's origins),
 * language (BCP-47-ish), other keys kept as opaque extras within 4 KiB; plus the other bad inputs
 * of creation. Through the service with the runtime interceptors, against MongoDB.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import { Code, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChallengeService } from '../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { DomainError } from '../../runtime/errors.js';
import { checkChallengeMetadata } from '../src/domain/challengeMetadata.js';
import { DEFAULT_RATE_LIMITS } from '../src/domain/rateLimits.js';
import { createValueHasher } from '../src/domain/valueHasher.js';
import { mongoRateLimits } from '../src/rateLimits.js';
import { mongoChallengeStore } from '../src/store/challenges.js';
import { as, failure, inMemoryClient, openTestDatabase, TestProjectSettings, TestUserDirectory, type TestDatabase, noDelivery } from './support.js';
import { RecordingEventOutbox } from '../../../test/kit/recordingEventOutbox.js';

let db: TestDatabase;
let projects: TestProjectSettings;
let users: TestUserDirectory;
let client: Client<typeof ChallengeService>;

beforeAll(async () => {
  db = await openTestDatabase();
  projects = new TestProjectSettings();
  users = new TestUserDirectory();
  client = inMemoryClient({
    delivery: noDelivery,
    store: mongoChallengeStore(db.store.db),
    users,
    projects,
    limits: mongoRateLimits(db.store.db, DEFAULT_RATE_LIMITS),
    hasher: createValueHasher(Buffer.alloc(32, 3)),
    events: new RecordingEventOutbox(),
    now: () => new Date('2030-01-01T00:00:00Z'),
  });
});
afterAll(async () => db?.stop());
beforeEach(async () => {
  await db.clear();
  projects.asked.length = 0;
  users.asked.length = 0;
});

const clientInformation = { remoteAddress: '203.0.113.9', userAgent: 'Mozilla/5.0', userVerifyingPlatformAuthenticatorAvailable: false, conditionalMediationAvailable: false };
const create = (challengeType: string, challengeMetadata?: JsonObject) =>
  client.createChallenge({ userId: 'usr-1', challengeType, identifierValue: challengeType === 'sms_otp' ? '+4915112345678' : 'ada@example.com', clientInformation, challengeMetadata }, as('pro-1'));

async function stored(challengeId: string) {
  return (await db.challenges.findOne({ _id: challengeId }))!.metadata;
}

describe('linkUrl', () => {
  it("an email link's linkUrl on one of the project's origins is stored (normalized) with the other keys", async () => {
    const { challenge } = await create('email_link', { linkUrl: 'https://APP.example.com/verify?next=%2Fhome', language: 'de', campaign: { id: 7 } });
    expect(await stored(challenge!.challengeId)).toEqual({ linkUrl: 'https://app.example.com/verify?next=%2Fhome', language: 'de', campaign: { id: 7 } });
    expect(projects.asked).toEqual(['pro-1']);
    const local = await create('email_link', { linkUrl: 'http://localhost:3000/magic' });
    expect(await stored(local.challenge!.challengeId)).toEqual({ linkUrl: 'http://localhost:3000/magic' });
  });

  it('the project is asked once per creation (its delivery setting, and origins for a linkUrl)', async () => {
    await create('email_link', { language: 'en' });
    await create('email_otp', { language: 'en-US' });
    await create('email_link');
    expect(projects.asked).toEqual(['pro-1', 'pro-1', 'pro-1']);
  });

  const bad: [string, unknown, string][] = [
    ['another origin', 'https://evil.example.net/verify', "must be on one of the project's origins (https://app.example.com, http://localhost:3000), got https://evil.example.net"],
    ['another port', 'https://app.example.com:8443/verify', "must be on one of the project's origins (https://app.example.com, http://localhost:3000), got https://app.example.com:8443"],
    ['another scheme of an origin', 'http://app.example.com/verify', "must be on one of the project's origins (https://app.example.com, http://localhost:3000), got http://app.example.com"],
    ['a subdomain', 'https://x.app.example.com/', "must be on one of the project's origins (https://app.example.com, http://localhost:3000), got https://x.app.example.com"],
    ['a relative URL', '/verify', 'must be an absolute URL'],
    ['an empty string', '', 'must be an absolute URL'],
    ['a javascript: URL', 'javascript:alert(1)', 'must be an http(s) URL, got javascript:'],
    ['a look-alike user part', 'https://app.example.com@evil.example.net/', 'must not contain credentials'],
    ['user and password', 'https://u:p@app.example.com/', 'must not contain credentials'],
    ['a number', 42, 'must be a string, got number'],
    ['null', null, 'must be a string, got null'],
    ['an object', { href: 'https://app.example.com/' }, 'must be a string, got object'],
  ];
  for (const [what, linkUrl, message] of bad) {
    it(`rejects ${what} as InvalidArgument naming challengeMetadata.linkUrl, storing nothing`, async () => {
      const { code, info } = await failure(create('email_link', { linkUrl } as JsonObject));
      expect(code).toBe(Code.InvalidArgument);
      expect(info?.type).toBe('validation_error');
      expect(info?.validation.map((v) => [v.field, v.message])).toEqual([['challengeMetadata.linkUrl', message]]);
      expect(info?.details).toBe(`challengeMetadata.linkUrl ${message}`);
      expect(users.asked).toEqual([]);
      expect(await db.challenges.countDocuments({})).toBe(0);
    });
  }

  it('is not allowed on OTP challenges (a caller mistake, not an extra)', async () => {
    for (const type of ['email_otp', 'sms_otp']) {
      const { code, info } = await failure(create(type, { linkUrl: 'https://app.example.com/verify' }));
      expect(code).toBe(Code.InvalidArgument);
      expect(info?.validation).toEqual([expect.objectContaining({ field: 'challengeMetadata.linkUrl', message: `is only allowed for email_link challenges, not ${type}` })]);
    }
    expect(await db.challenges.countDocuments({})).toBe(0);
  });

  it('a project without the origin in its settings rejects it; one that adds it accepts it', async () => {
    projects.overrides.set('pro-1', { origins: ['https://shop.example.org'] });
    try {
      expect((await failure(create('email_link', { linkUrl: 'https://app.example.com/v' }))).code).toBe(Code.InvalidArgument);
      const { challenge } = await create('email_link', { linkUrl: 'https://shop.example.org/v' });
      expect((await stored(challenge!.challengeId)).linkUrl).toBe('https://shop.example.org/v');
    } finally {
      projects.overrides.delete('pro-1');
    }
  });
});

describe('language', () => {
  it('accepts "xx" and "xx-YY"', async () => {
    for (const language of ['en', 'de', 'pt-BR', 'en-US']) {
      const { challenge } = await create('sms_otp', { language });
      expect(await stored(challenge!.challengeId)).toEqual({ language });
    }
  });

  it('rejects anything else, naming challengeMetadata.language', async () => {
    for (const language of ['EN', 'english', 'en_US', 'en-us', 'e', 'eng', 'en-USA', '', 5, true, null, ['en']]) {
      const { code, info } = await failure(create('email_otp', { language } as JsonObject));
      expect(code, JSON.stringify(language)).toBe(Code.InvalidArgument);
      expect(info?.validation.map((v) => v.field)).toEqual(['challengeMetadata.language']);
      expect(info?.validation[0].message).toBe(`must be a language tag like "en" or "en-US", got ${JSON.stringify(language)}`);
    }
    expect(await db.challenges.countDocuments({})).toBe(0);
  });
});

describe('other keys and size', () => {
  it('keeps unknown keys as given', async () => {
    const extras = { purpose: 'signup', attempt: 1, nested: { a: [1, 'two', null] }, flag: false };
    const { challenge } = await create('email_otp', extras);
    expect(await stored(challenge!.challengeId)).toEqual(extras);
  });

  it('oversized metadata is InvalidArgument naming challengeMetadata, checked before the keys', async () => {
    const { code, info } = await failure(create('email_link', { linkUrl: 'https://evil.example.net/', blob: 'x'.repeat(4100) }));
    expect(code).toBe(Code.InvalidArgument);
    expect(info?.validation.map((v) => v.field)).toEqual(['challengeMetadata']);
    expect(projects.asked).toEqual([]);
  });

  it('an unknown challengeType is InvalidArgument naming challengeType', async () => {
    for (const type of ['EMAIL_OTP', 'email', 'passkey', '']) {
      const { code, info } = await failure(create(type));
      expect(code).toBe(Code.InvalidArgument);
      expect(info?.validation.map((v) => v.field)).toEqual(['challengeType']);
    }
    expect(await db.challenges.countDocuments({})).toBe(0);
  });
});

describe('checkChallengeMetadata (unit)', () => {
  it('returns a copy and does not change its input', async () => {
    const input = { linkUrl: 'https://app.example.com', other: 1 };
    const out = await checkChallengeMetadata('email_link', input, async () => ['https://app.example.com']);
    expect(out).toEqual({ linkUrl: 'https://app.example.com/', other: 1 });
    expect(input.linkUrl).toBe('https://app.example.com');
  });

  it('throws DomainErrors of kind invalid_argument', async () => {
    await expect(checkChallengeMetadata('email_link', { linkUrl: 'https://b.example' }, async () => [])).rejects.toBeInstanceOf(DomainError);
    await expect(checkChallengeMetadata('email_link', { linkUrl: 'https://b.example' }, async () => [])).rejects.toMatchObject({
      kind: 'invalid_argument',
      validation: [{ field: 'challengeMetadata.linkUrl', message: "must be on one of the project's origins (none configured), got https://b.example" }],
    });
  });
});
