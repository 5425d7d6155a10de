/** Challenge rules without storage: lifetimes, value formats, identifier normalization, metadata size. */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../runtime/errors.js';
import {
  checkMetadataSize,
  LIFETIMES,
  lifetimeFor,
  MAX_METADATA_BYTES,
  newChallengeValue,
  normalizeIdentifier,
} from '../src/domain/challengeRules.js';
import type { ChallengeType } from '../src/store/challenges.js';

/** The DomainError a call throws (fails the test if it does not). */
function domainError(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('lifetimeFor', () => {
  it('has the documented defaults and bounds', () => {
    expect(LIFETIMES).toEqual({
      email_otp: { default: 300, min: 60, max: 3600 },
      sms_otp: { default: 300, min: 60, max: 3600 },
      email_link: { default: 900, min: 60, max: 86_400 },
    });
  });

  it('uses the default of the type when no lifetime is requested', () => {
    expect(lifetimeFor('email_otp', undefined)).toBe(300);
    expect(lifetimeFor('sms_otp', undefined)).toBe(300);
    expect(lifetimeFor('email_link', undefined)).toBe(900);
  });

  const edges: [ChallengeType, number, number][] = [
    ['email_otp', 60, 3600],
    ['sms_otp', 60, 3600],
    ['email_link', 60, 86_400],
  ];
  for (const [type, min, max] of edges) {
    it(`${type}: accepts exactly ${min} and ${max}, rejects ${min - 1} and ${max + 1}`, () => {
      expect(lifetimeFor(type, min)).toBe(min);
      expect(lifetimeFor(type, max)).toBe(max);
      expect(lifetimeFor(type, min + 1)).toBe(min + 1);
      for (const bad of [min - 1, max + 1]) {
        const err = domainError(() => lifetimeFor(type, bad));
        expect(err.kind).toBe('invalid_argument');
        expect(err.type).toBe('validation_error');
        expect(err.message).toBe(`lifetimeSeconds must be between ${min} and ${max} for ${type}, got ${bad}`);
        expect(err.validation).toEqual([{ field: 'lifetimeSeconds', message: `must be between ${min} and ${max} for ${type}` }]);
      }
    });
  }

  it('a link may live a day, an OTP only an hour', () => {
    expect(lifetimeFor('email_link', 7200)).toBe(7200);
    expect(() => lifetimeFor('email_otp', 7200)).toThrow(DomainError);
    expect(() => lifetimeFor('sms_otp', 7200)).toThrow(DomainError);
  });

  it('rejects zero, negatives, fractions and non-numbers', () => {
    for (const bad of [0, -300, 60.5, 299.999, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => lifetimeFor('email_otp', bad), String(bad)).toThrow(DomainError);
    }
  });
});

describe('newChallengeValue', () => {
  it('OTPs are six digits, leading zeros kept', () => {
    const values = Array.from({ length: 2000 }, () => newChallengeValue('email_otp'));
    for (const v of values) expect(v).toMatch(/^[0-9]{6}$/);
    for (let i = 0; i < 200; i++) expect(newChallengeValue('sms_otp')).toMatch(/^[0-9]{6}$/);
    // 2000 draws from a million values: a constant or tiny range would show.
    expect(new Set(values).size).toBeGreaterThan(1900);
  });

  it('email links are 256-bit base64url tokens', () => {
    const values = Array.from({ length: 200 }, () => newChallengeValue('email_link'));
    for (const v of values) {
      expect(v).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(v, 'base64url')).toHaveLength(32);
    }
    expect(new Set(values).size).toBe(200);
  });
});

describe('normalizeIdentifier', () => {
  it('trims and lower-cases email addresses for both email types', () => {
    expect(normalizeIdentifier('email_otp', '  Ada.Lovelace@Example.COM \n')).toBe('ada.lovelace@example.com');
    expect(normalizeIdentifier('email_link', 'A+tag@sub.example.co.uk')).toBe('a+tag@sub.example.co.uk');
  });

  it('rejects what is not an email address, naming identifierValue', () => {
    for (const bad of ['', '   ', 'ada', 'ada@', '@example.com', 'ada@example', 'ada@@example.com', 'a da@example.com', 'ada@exa mple.com', 'ada@example.', '+4915112345678']) {
      const err = domainError(() => normalizeIdentifier('email_otp', bad));
      expect(err.kind, bad).toBe('invalid_argument');
      expect(err.type).toBe('validation_error');
      expect(err.validation).toEqual([{ field: 'identifierValue', message: 'must be an email address for email_otp' }]);
    }
    expect(domainError(() => normalizeIdentifier('email_link', 'nope')).validation[0].message).toBe('must be an email address for email_link');
  });

  it('limits the local part to 64 characters', () => {
    expect(normalizeIdentifier('email_otp', `${'a'.repeat(64)}@example.com`)).toBe(`${'a'.repeat(64)}@example.com`);
    expect(() => normalizeIdentifier('email_otp', `${'a'.repeat(65)}@example.com`)).toThrow(DomainError);
  });

  it('sms_otp: E.164, with spaces, dashes and parentheses removed', () => {
    expect(normalizeIdentifier('sms_otp', '+49 151 1234-5678')).toBe('+4915112345678');
    expect(normalizeIdentifier('sms_otp', ' +1 (415) 555-0100 ')).toBe('+14155550100');
  });

  it('sms_otp: 7 to 15 digits after the plus, no leading zero', () => {
    expect(normalizeIdentifier('sms_otp', '+1234567')).toBe('+1234567');
    expect(normalizeIdentifier('sms_otp', `+1${'2'.repeat(14)}`)).toBe(`+1${'2'.repeat(14)}`);
    for (const bad of ['+123456', `+1${'2'.repeat(15)}`, '+0123456789', '4915112345678', '0049151123456', '+49 151 abc', '+49.151.1234567', 'ada@example.com', '']) {
      const err = domainError(() => normalizeIdentifier('sms_otp', bad));
      expect(err.validation, bad).toEqual([{ field: 'identifierValue', message: 'must be an E.164 phone number for sms_otp' }]);
    }
  });

  it('email types do not accept a phone number and sms_otp does not accept an email', () => {
    expect(() => normalizeIdentifier('email_link', '+4915112345678')).toThrow(DomainError);
    expect(() => normalizeIdentifier('sms_otp', 'a@example.com')).toThrow(DomainError);
  });
});

describe('checkMetadataSize', () => {
  const ofSize = (bytes: number) => ({ a: 'x'.repeat(bytes - 8) }); // {"a":"…"} is 8 bytes plus the string

  it('accepts no metadata and metadata of exactly 4 KiB', () => {
    expect(MAX_METADATA_BYTES).toBe(4096);
    expect(() => checkMetadataSize(undefined)).not.toThrow();
    expect(() => checkMetadataSize({})).not.toThrow();
    expect(Buffer.byteLength(JSON.stringify(ofSize(4096)))).toBe(4096);
    expect(() => checkMetadataSize(ofSize(4096))).not.toThrow();
  });

  it('rejects one byte more, naming challengeMetadata', () => {
    const err = domainError(() => checkMetadataSize(ofSize(4097)));
    expect(err.kind).toBe('invalid_argument');
    expect(err.type).toBe('validation_error');
    expect(err.message).toBe('challengeMetadata is 4097 bytes as JSON; at most 4096 are allowed');
    expect(err.validation).toEqual([{ field: 'challengeMetadata', message: 'must be at most 4096 bytes as JSON' }]);
  });

  it('counts UTF-8 bytes, not characters', () => {
    // 2045 two-byte characters: 2045 characters + 8, but 4098 bytes.
    const metadata = { a: 'é'.repeat(2045) };
    expect(JSON.stringify(metadata).length).toBeLessThan(4096);
    expect(() => checkMetadataSize(metadata)).toThrow(DomainError);
  });
});
