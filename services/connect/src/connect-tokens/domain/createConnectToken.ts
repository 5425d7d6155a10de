import { classifyIdentifier } from '../../users/index.js';
import { randomBytes } from 'node:crypto';
import { invalidArgument } from '../../../../runtime/errors.js';
import { newId } from '../../../../runtime/ids.js';
import type { ConnectTokenRecord } from '../store/connectTokens.js';
import type { ConnectTokenDeps } from './connectTokenDeps.js';
import { checkConnectTokenType, DEFAULT_LIFETIME_SECONDS, MAX_LIFETIME_SECONDS } from './connectTokenRules.js';
import { hashConnectTokenSecret } from './useConnectToken.js';

export interface CreateConnectTokenInput {
  projectId: string;
  type: string;
  identifier: string;
  displayName?: string;
  /** Default 3600; 1 to 86400. */
  maxLifetimeInSeconds?: number;
}

export interface CreatedConnectToken {
  record: ConnectTokenRecord;
  /** Returned once, to the application's server; only its hash is stored. */
  secret: string;
}

/** Marks the secret's kind for people reading logs of the application; the rest is 256 random bits. */
const SECRET_PREFIX = 'ctk_';

/**
 * Creates a connect token for one purpose and one user of the application. The secret is the
 * only credential the frontend presents, so it is 32 random bytes and stored only as a hash.
 */
export async function createConnectToken(deps: ConnectTokenDeps, input: CreateConnectTokenInput): Promise<CreatedConnectToken> {
  const type = checkConnectTokenType(input.type);
  // Messages name the rule, not the value: identifiers are personal data and errors are logged.
  const identifier = input.identifier.trim();
  if (identifier === '') {
    throw invalidArgument('validation_error', 'data.identifier must not be empty', [{ field: 'data.identifier', message: 'must not be empty' }]);
  }
  // The flows find (or create) the user by this identifier; one that fits no identifier rule could
  // never be used, so it is refused now rather than when the user's page presents the token.
  if (!classifyIdentifier(identifier)) {
    throw invalidArgument('validation_error', 'data.identifier must be an email address, a phone number in E.164 format or a username (a-z, 0-9, ".", "_", "-")', [
      { field: 'data.identifier', message: 'must be an email address, an E.164 phone number or a username' },
    ]);
  }
  const displayName = input.displayName?.trim() ?? '';
  // The authenticator shows this name for the new passkey; without it the user could not tell passkeys apart.
  if (type === 'passkey-append' && displayName === '') {
    throw invalidArgument('validation_error', 'data.displayName is required for a passkey-append token, got none', [
      { field: 'data.displayName', message: 'is required for passkey-append' },
    ]);
  }
  const lifetime = input.maxLifetimeInSeconds ?? DEFAULT_LIFETIME_SECONDS;
  // protovalidate bounds it already; this keeps the domain safe when called without the interceptor.
  if (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > MAX_LIFETIME_SECONDS) {
    throw invalidArgument('validation_error', `maxLifetimeInSeconds must be an integer from 1 to ${MAX_LIFETIME_SECONDS}, got ${lifetime}`, [
      { field: 'maxLifetimeInSeconds', message: `must be from 1 to ${MAX_LIFETIME_SECONDS}` },
    ]);
  }
  const secret = SECRET_PREFIX + randomBytes(32).toString('base64url');
  const now = deps.now();
  const record: ConnectTokenRecord = {
    _id: newId('ctk'),
    projectId: input.projectId,
    type,
    identifier,
    // A name sent with a delete or list token is kept (and echoed back) though no flow uses it.
    ...(displayName ? { displayName } : {}),
    status: 'initial',
    secretHash: hashConnectTokenSecret(secret),
    createdAt: now,
    updatedAt: now,
    expiresAt: new Date(now.getTime() + lifetime * 1000),
  };
  await deps.connectTokens.insert(record);
  return { record, secret };
}
