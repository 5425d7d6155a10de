/**
 * What the application's passkey events (backend API passkeyEvents) do to the next decisions, as
 * the hosted service's insights treat them. Only events that have not expired count; a deleted
 * event is gone from the user's document and counts no more either.
 *
 * - user-login-blacklisted: no passkey login is offered (loginAllow false, tag user-login-blacklisted).
 * - user-append-after-cross-platform-blacklisted: no append after a cross-device login (after-hybrid).
 * - user-append-after-login-error-blacklisted: no append after a failed passkey login (after-error).
 * - append-explicit-abort, append-error, append-credential-exists: the append attempt they name
 *   (by process, else the latest before them) failed, so its kind of append cools down, exactly as
 *   when the SDK reports them (recordClientEvent).
 * - login-explicit-abort, login-error, login-one-tap-switch: kept for the application's own
 *   reading; login decisions do not depend on past login failures.
 */
import type { AppendVariant } from './situation.js';

/** The reference's passkeyEventType values. */
export const PASSKEY_EVENT_TYPES = [
  'user-login-blacklisted',
  'login-explicit-abort',
  'login-error',
  'login-one-tap-switch',
  'user-append-after-cross-platform-blacklisted',
  'user-append-after-login-error-blacklisted',
  'append-credential-exists',
  'append-explicit-abort',
  'append-error',
] as const;

export type PasskeyEventType = (typeof PASSKEY_EVENT_TYPES)[number];

/** What the rules need of one stored event. */
export interface CountingPasskeyEvent {
  eventType: string;
  processId?: string;
  expiresAt: Date;
  createdAt: Date;
}

const APPEND_FAILURES: ReadonlySet<string> = new Set(['append-explicit-abort', 'append-error', 'append-credential-exists']);

const BLOCKED_VARIANT: Readonly<Record<string, AppendVariant>> = {
  'user-append-after-cross-platform-blacklisted': 'after-hybrid',
  'user-append-after-login-error-blacklisted': 'after-error',
};

export interface PasskeyEventEffects {
  loginBlacklisted: boolean;
  /** Append variants the application has blacklisted for the user. */
  appendBlacklisted: AppendVariant[];
  /** Append failures the application reported, as history entries (at their creation). */
  appendFailures: { type: 'append-failed'; at: Date; processId?: string }[];
}

export function passkeyEventEffects(events: readonly CountingPasskeyEvent[], now: Date): PasskeyEventEffects {
  // An event counts from its creation until it expires (strictly before expiresAt).
  const active = events.filter((e) => e.createdAt.getTime() <= now.getTime() && e.expiresAt.getTime() > now.getTime());
  return {
    loginBlacklisted: active.some((e) => e.eventType === 'user-login-blacklisted'),
    appendBlacklisted: [...new Set(active.flatMap((e) => (Object.hasOwn(BLOCKED_VARIANT, e.eventType) ? [BLOCKED_VARIANT[e.eventType]] : [])))],
    appendFailures: active
      .filter((e) => APPEND_FAILURES.has(e.eventType))
      .map((e) => ({ type: 'append-failed' as const, at: e.createdAt, ...(e.processId ? { processId: e.processId } : {}) })),
  };
}
