/**
 * How the frontend flows use a connect token: a flow's start claims the token for its process
 * (claimConnectToken), the step that does what the token allows consumes it (consumeConnectToken),
 * and if that step then fails in a way the user can retry, the flow gives it back
 * (releaseConnectToken). Every change is one guarded single-document update, so of two concurrent
 * uses exactly one wins. Token types whose use repeats (passkey-list) go through
 * useRepeatableConnectToken instead, which allows the claiming process later uses as well.
 */
import { createHash } from 'node:crypto';
import { failedPrecondition, permissionDenied, type DomainError } from '../../../../runtime/errors.js';
import type { ConnectTokenRecord, ConnectTokenType } from '../store/connectTokens.js';
import type { ConnectTokenDeps } from './connectTokenDeps.js';
import { REUSABLE_CONNECT_TOKEN_TYPES } from './connectTokenRules.js';

/** Another request may change the token between its read and the guarded update; a few rounds settle it. */
const MAX_ROUNDS = 3;
const SECRET_PREFIX = 'ctk_';

/**
 * Hex SHA-256 of a secret. Tokens are looked up by this hash, so no stored value is ever compared
 * with the presented one character by character: a timing difference in the index lookup could at
 * most reveal a prefix of a hash, and the secret carries 256 random bits, so the hash of a guess
 * says nothing about other secrets. That is why a plain (unkeyed, fast) hash is enough here.
 */
export function hashConnectTokenSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * One answer for an unknown secret, another project's token and a token of another purpose, so
 * a caller learns nothing about tokens it was not given for this use.
 */
const invalidToken = () => permissionDenied('invalid_connect_token', 'the connect token is not valid for this request');

const isExpired = (token: ConnectTokenRecord, now: Date) => token.expiresAt.getTime() <= now.getTime();
const expired = (token: ConnectTokenRecord) =>
  failedPrecondition('connect_token_expired', `the connect token expired at ${token.expiresAt.toISOString()}; the application must create a new one`);

/** Why a token cannot be used by this process now, or null if it can. */
function refusal(token: ConnectTokenRecord, processId: string, now: Date): DomainError | null {
  // Consumed first: a used token is gone for good, whatever its expiry says.
  if (token.status === 'consumed') return failedPrecondition('connect_token_consumed', 'the connect token has been used already; the application must create a new one');
  if (isExpired(token, now)) return expired(token);
  if (token.processId !== undefined && token.processId !== processId) return permissionDenied('connect_token_in_use', 'the connect token is being used by another process');
  return null;
}

/** The token a secret names for this project and purpose, as stored; not yet judged for use. */
async function findPresentedToken(deps: ConnectTokenDeps, input: { projectId: string; secret: string; type: ConnectTokenType }): Promise<ConnectTokenRecord> {
  // Not one of our secrets: no need to ask the store.
  if (!input.secret.startsWith(SECRET_PREFIX)) throw invalidToken();
  const found = await deps.connectTokens.findBySecretHash(hashConnectTokenSecret(input.secret));
  // The lookup is by secret alone, so the project is checked here.
  if (!found || found.projectId !== input.projectId || found.type !== input.type) throw invalidToken();
  return found;
}

/** Finds the token a secret names for this project and purpose and claims it for the process. */
export async function claimConnectToken(
  deps: ConnectTokenDeps,
  input: { projectId: string; secret: string; type: ConnectTokenType; processId: string },
): Promise<ConnectTokenRecord> {
  return claimFoundToken(deps, input, await findPresentedToken(deps, input));
}

async function claimFoundToken(deps: ConnectTokenDeps, input: { projectId: string; processId: string }, found: ConnectTokenRecord): Promise<ConnectTokenRecord> {
  const now = deps.now();
  let token: ConnectTokenRecord | null = found;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const refused = refusal(token, input.processId, now);
    if (refused) throw refused;
    const claimed = await deps.connectTokens.claim(input.projectId, token._id, input.processId, now);
    if (claimed) return claimed;
    // The token changed since it was read (claimed, consumed or deleted meanwhile): judge it again.
    token = await deps.connectTokens.find(input.projectId, token._id);
    if (!token) throw invalidToken();
  }
  throw permissionDenied('connect_token_in_use', 'the connect token is being used by another process');
}

/**
 * Whether the process may use this token again: a type whose use repeats, consumed by this very
 * process. The application's revocation (backend API status "consumed") drops the claim, so it
 * ends the repeated use as well.
 */
function isReusableBy(token: ConnectTokenRecord, processId: string): boolean {
  return REUSABLE_CONNECT_TOKEN_TYPES.includes(token.type) && token.status === 'consumed' && token.processId === processId;
}

/**
 * A use of a token whose purpose repeats (passkey-list, connectTokenRules.ts): the first use
 * claims and consumes it as claimConnectToken and consumeConnectToken do; later uses by the same
 * process are allowed until it expires. Every other check stays: project, type, expiry, and the
 * process the token is bound to (another process is refused as with any claimed token). `first`
 * says whether this use consumed the token; only such a use may release it after a failure.
 */
export async function useRepeatableConnectToken(
  deps: ConnectTokenDeps,
  input: { projectId: string; secret: string; type: ConnectTokenType; processId: string },
): Promise<{ token: ConnectTokenRecord; first: boolean }> {
  if (!REUSABLE_CONNECT_TOKEN_TYPES.includes(input.type)) throw new Error(`connect tokens of type ${input.type} are single-use`);
  const found = await findPresentedToken(deps, input);
  const again = (token: ConnectTokenRecord) => {
    if (isExpired(token, deps.now())) throw expired(token);
    return { token, first: false };
  };
  if (isReusableBy(found, input.processId)) return again(found);
  const claimed = await claimFoundToken(deps, input, found);
  try {
    return { token: await consumeConnectToken(deps, { projectId: input.projectId, tokenId: claimed._id, processId: input.processId }), first: true };
  } catch (err) {
    // A concurrent first use by this same process consumed it in between: this use is a repeat.
    const current = await deps.connectTokens.find(input.projectId, claimed._id);
    if (current && isReusableBy(current, input.processId)) return again(current);
    throw err;
  }
}

/** Consumes a claimed token (single use); throws if it is no longer initial/claimed by this process. */
export async function consumeConnectToken(deps: ConnectTokenDeps, input: { projectId: string; tokenId: string; processId: string }): Promise<ConnectTokenRecord> {
  const now = deps.now();
  const consumed = await deps.connectTokens.consume(input.projectId, input.tokenId, input.processId, now);
  if (consumed) return consumed;
  const token = await deps.connectTokens.find(input.projectId, input.tokenId);
  // Deleted by the application since the claim.
  if (!token) throw invalidToken();
  const refused = refusal(token, input.processId, now);
  if (refused) throw refused;
  if (token.processId !== input.processId) throw permissionDenied('connect_token_in_use', 'the connect token is not claimed by this process');
  // Initial and ours again: a concurrent use by this process won and was released in between. This
  // use lost the race; it does not get a second chance on the same read.
  throw failedPrecondition('connect_token_consumed', 'the connect token was used by a concurrent request');
}

/** Undoes consumeConnectToken after the use failed for a reason the user can retry. Never throws (logs nothing itself). */
export async function releaseConnectToken(deps: ConnectTokenDeps, input: { projectId: string; tokenId: string; processId: string }): Promise<void> {
  try {
    // Only our own consumption is undone: a token the application revoked meanwhile has lost its
    // claim and stays consumed, as does one deleted.
    await deps.connectTokens.release(input.projectId, input.tokenId, input.processId, deps.now());
  } catch {
    // The flow is already answering with the use's own error. Failing here leaves the token
    // consumed, the safe side: the user needs a new token, never gets a reused one.
  }
}
