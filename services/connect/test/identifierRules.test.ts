import { describe, expect, it } from 'vitest';
import { DomainError } from '../../runtime/errors.js';
import { normalizeIdentifier } from '../src/users/domain/identifierRules.js';
import type { IdentifierType } from '../src/users/store/identifiers.js';

describe('identifier normalization', () => {
  const valid: Array<[IdentifierType, string, string]> = [
    ['email', 'Jane.Doe@Example.COM', 'jane.doe@example.com'],
    ['email', '  jane@example.com\t', 'jane@example.com'],
    ['email', 'a+tag@sub.example.co.uk', 'a+tag@sub.example.co.uk'],
    ['phone', '+49 151 1234 5678', '+4915112345678'],
    ['phone', '+1 (415) 555-0100', '+14155550100'],
    ['phone', '+4915112345678', '+4915112345678'],
    ['username', '  Jane_Doe.99 ', 'jane_doe.99'],
    ['username', 'a', 'a'],
    ['username', 'x'.repeat(128), 'x'.repeat(128)],
  ];
  it.each(valid)('%s %j → %j', (type, input, expected) => {
    expect(normalizeIdentifier(type, input)).toBe(expected);
  });

  const invalid: Array<[IdentifierType, string]> = [
    ['email', 'jane'],
    ['email', 'jane@example'],
    ['email', 'ja ne@example.com'],
    ['email', ''],
    ['phone', '015112345678'],
    ['phone', '+0151123456'],
    ['phone', '+49 151 abc'],
    ['phone', '+12345'],
    ['phone', '+1234567890123456'],
    ['username', ''],
    ['username', 'jane doe'],
    ['username', 'jäne'],
    ['username', 'x'.repeat(129)],
  ];
  it.each(invalid)('%s %j is rejected as a validation error on identifierValue', (type, input) => {
    let caught: unknown;
    try {
      normalizeIdentifier(type, input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DomainError);
    const err = caught as DomainError;
    expect(err.kind).toBe('invalid_argument');
    expect(err.type).toBe('validation_error');
    expect(err.validation[0].field).toBe('identifierValue');
  });
});
