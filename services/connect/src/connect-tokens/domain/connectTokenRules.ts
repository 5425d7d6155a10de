/** The value rules of connect tokens, shared by creation, list filters and status updates. */
import { invalidArgument } from '../../../../runtime/errors.js';
import type { ConnectTokenStatus, ConnectTokenType } from '../store/connectTokens.js';

export const CONNECT_TOKEN_TYPES: readonly ConnectTokenType[] = ['passkey-append', 'passkey-delete', 'passkey-list'];
export const CONNECT_TOKEN_STATUSES: readonly ConnectTokenStatus[] = ['initial', 'consumed'];

/**
 * Token types whose one purpose repeats: after its first use a passkey-list token stays usable by
 * the process that used it until it expires. The passkey list component of
 * @corbado/connect-react lists again with the same token after every delete and append, and a
 * list only shows the user's own passkeys, which that page has already seen. Tokens that change
 * something (append, delete) stay single-use.
 */
export const REUSABLE_CONNECT_TOKEN_TYPES: readonly ConnectTokenType[] = ['passkey-list'];

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

