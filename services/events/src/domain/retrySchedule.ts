/**
 * When a failed delivery is tried again: the Standard Webhooks schedule (attempt 1 at once, then
 * these delays after each failure). After the last delay's attempt fails the delivery is failed.
 */
export const STANDARD_RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 14 * 3600, 20 * 3600, 24 * 3600] as const;

/** An endpoint whose deliveries failed without a success for this long is disabled at its next failure. */
export const DISABLE_AFTER_FAILING_MS = 24 * 3600 * 1000;

/**
 * The time of the next attempt after `attemptsMade` attempts failed, or null when none is left
 * (attemptsMade counts the attempt that just failed: 1 after the first).
 */
export function nextAttemptAt(delaysSeconds: readonly number[], attemptsMade: number, now: Date): Date | null {
  const delay = delaysSeconds[attemptsMade - 1];
  if (delay === undefined) return null;
  return new Date(now.getTime() + delay * 1000);
}

/** A schedule from WEBHOOK_RETRY_SCHEDULE ("5,300,1800": seconds, fractions allowed); the standard one when empty. */
export function parseRetrySchedule(raw: string | undefined): number[] {
  if (!raw?.trim()) return [...STANDARD_RETRY_DELAYS_SECONDS];
  const delays = raw.split(',').map((s) => Number(s.trim()));
  if (delays.length > 20 || delays.some((d) => !Number.isFinite(d) || d < 0 || d > 7 * 86400)) {
    throw new Error('WEBHOOK_RETRY_SCHEDULE must be up to 20 comma-separated delays in seconds (0 to 604800)');
  }
  return delays;
}
