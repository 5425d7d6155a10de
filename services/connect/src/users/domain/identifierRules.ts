/** The value rules of users and login identifiers, shared by creation and list filters. */
import { invalidArgument } from '../../../../runtime/errors.js';
import type { IdentifierStatus, IdentifierType } from '../store/identifiers.js';
import type { UserStatus } from '../store/users.js';

export const IDENTIFIER_TYPES: readonly IdentifierType[] = ['email', 'phone', 'username'];
export const IDENTIFIER_STATUSES: readonly IdentifierStatus[] = ['pending', 'primary', 'verified'];
export const USER_STATUSES: readonly UserStatus[] = ['pending', 'active', 'disabled'];

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;
const E164 = /^\+[1-9][0-9]{6,14}$/;
const USERNAME = /^[a-z0-9._-]{1,128}$/;

function oneOf<T extends string>(field: string, allowed: readonly T[], value: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw invalidArgument('validation_error', `${field} must be one of ${allowed.join(', ')}, got "${value}"`, [
      { field, message: `must be one of ${allowed.join(', ')}` },
    ]);
  }
  return value as T;
}

export const checkIdentifierType = (value: string, field = 'identifierType') => oneOf(field, IDENTIFIER_TYPES, value);
export const checkIdentifierStatus = (value: string, field = 'status') => oneOf(field, IDENTIFIER_STATUSES, value);
export const checkUserStatus = (value: string, field = 'status') => oneOf(field, USER_STATUSES, value);

/** Messages name the rule, not the value: identifier values are personal data and errors are logged. */
function badValue(message: string) {
  return invalidArgument('validation_error', `identifierValue ${message}`, [{ field: 'identifierValue', message }]);
}

/**
 * The stored form of an identifier value, so that one address or number is one identifier however
 * it was typed: emails trimmed and lower-cased, phone numbers in E.164 without separators,
 * usernames trimmed and lower-cased from a restricted alphabet.
 */
export function normalizeIdentifier(type: IdentifierType, value: string): string {
  const trimmed = value.trim();
  switch (type) {
    case 'email': {
      if (!EMAIL.test(trimmed)) throw badValue(`must be an email address`);
      return trimmed.toLowerCase();
    }
    case 'phone': {
      const phone = trimmed.replace(/[\s()-]/g, '');
      if (!E164.test(phone)) throw badValue(`must be a phone number in E.164 format (e.g. +4915112345678)`);
      return phone;
    }
    case 'username': {
      const username = trimmed.toLowerCase();
      if (!USERNAME.test(username)) throw badValue(`must be 1 to 128 characters of a-z, 0-9, ".", "_" and "-"`);
      return username;
    }
  }
}
