/**
 * The state machine of a challenge, evaluated on every read:
 *   pending → completed   on the right value (exactly once);
 *   pending → expired     when its lifetime ends, or after `maxAttempts` wrong values;
 *   completed, expired    final.
 * The stored status lags behind time (nothing runs when a lifetime ends), so the status a caller
 * sees is computed from the record and the clock; the first read that sees an expiry writes it.
 */
import { failedPrecondition, notFound } from '../../../runtime/errors.js';
import type { ChallengeKey, ChallengeRecord, ChallengeStatus, ChallengeStore, ExpiryReason } from '../store/challenges.js';
import type { ChallengeType } from '../store/challenges.js';

export type ChallengeState = { status: 'pending' } | { status: 'completed' } | { status: 'expired'; reason: ExpiryReason };

/** The challenge's status at `now`, given the project's limit of wrong values. */
export function stateAt(record: ChallengeRecord, now: Date, maxAttempts: number): ChallengeState {
  if (record.status === 'completed') return { status: 'completed' };
  if (record.status === 'expired') return { status: 'expired', reason: record.expiredReason ?? reasonOf(record, maxAttempts) };
  // Still stored as pending: attempts first, since a lockout is the more specific answer.
  if (record.attempts >= maxAttempts) return { status: 'expired', reason: 'attempts' };
  if (record.expiresAt.getTime() <= now.getTime()) return { status: 'expired', reason: 'lifetime' };
  return { status: 'pending' };
}

function reasonOf(record: ChallengeRecord, maxAttempts: number): ExpiryReason {
  return record.attempts >= maxAttempts ? 'attempts' : 'lifetime';
}

/**
 * Writes an expiry the stored record does not show yet, and returns the record as the caller
 * should see it. The update is guarded (pending → expired only), so it never overwrites a
 * completion that won a race; when the guard fails, the stored record is the answer.
 */
export async function persistExpiry(store: ChallengeStore, record: ChallengeRecord, state: ChallengeState, now: Date): Promise<ChallengeRecord> {
  if (state.status !== 'expired' || record.status !== 'pending') return record;
  const key = keyOf(record);
  const updated = (await store.expire(key, now, state.reason)) ?? (await store.find(key));
  return updated ?? { ...record, status: 'expired', expiredAt: now, expiredReason: state.reason };
}

export function keyOf(record: ChallengeRecord): ChallengeKey {
  return { projectId: record.projectId, userId: record.userId, challengeId: record._id };
}

/** A challenge as callers see it after creation: never its value nor its hash. */
export interface ChallengeView {
  challengeId: string;
  type: ChallengeType;
  identifierValue: string;
  expiresAt: Date;
  status: ChallengeStatus;
}

export function viewOf(record: ChallengeRecord): ChallengeView {
  return { challengeId: record._id, type: record.type, identifierValue: record.identifierValue, expiresAt: record.expiresAt, status: record.status };
}

/** 404 for a challenge that does not exist, and equally for another user's or project's. */
export function challengeNotFound(challengeId: string) {
  return notFound('challenge_not_found', `challenge ${challengeId} does not exist`);
}

/** 410 Gone (failed_precondition, type ending in _expired), saying why. */
export function expiredError(record: ChallengeRecord, reason: ExpiryReason, maxAttempts: number) {
  if (reason === 'attempts') {
    return failedPrecondition(
      'challenge_expired',
      `challenge ${record._id} has expired: too many wrong values (${record.attempts} received; the limit is ${maxAttempts})`,
    );
  }
  return failedPrecondition('challenge_expired', `challenge ${record._id} has expired: its lifetime ended at ${record.expiresAt.toISOString()}`);
}

/** 409 Conflict: a challenge is completed once; a second right value is not a second success. */
export function alreadyCompletedError(record: ChallengeRecord) {
  return failedPrecondition('challenge_already_completed', `challenge ${record._id} has already been completed`);
}
