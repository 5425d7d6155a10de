/** The value rules of connect tokens, shared by creation, list filters and status updates. */
import { invalidArgument } from '../../../../runtime/errors.js';
import type { ConnectTokenStatus, ConnectTokenType } from '../store/connectTokens.js';

export const CONNECT_TOKEN_TYPES: readonly ConnectTokenType[] = ['passkey-append', 'passkey-delete', 'passkey-list'];
export const CONNECT_TOKEN_STATUSES: readonly ConnectTokenStatus[] = ['initial', 'consumed'];

/** Lifetime when the application names none, and the most it may ask for (as the proto bounds it). */
export const DEFAULT_LIFETIME_SECONDS = 3600;
export const MAX_LIFETIME_SECONDS = 86_400;

function oneOf<T extends string>(field: string, allowed: readonly T[], value: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw invalidArgument('validation_error', `${field} must be one of ${allowed.join(', ')}, got "${value}"`, [
      { field, message: `must be one of ${allowed.join(', ')}` },
    ]);
  }
  return value as T;
}

export const checkConnectTokenType = (value: string, field = 'type') => oneOf(field, CONNECT_TOKEN_TYPES, value);
export const checkConnectTokenStatus = (value: string, field = 'status') => oneOf(field, CONNECT_TOKEN_STATUSES, value);

