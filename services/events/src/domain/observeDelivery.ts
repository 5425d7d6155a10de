/**
 * What the delivery worker reports to the metrics (an injected port: the domain knows no
 * Prometheus; services/runtime/metrics.ts, webhookDeliveryObserver, implements it). Outcomes are a
 * closed set, and nothing identifying a project, an endpoint or a URL is reported: labels must stay
 * few, and they must not name tenants.
 */
import type { PostResult } from './ports.js';

/**
 * One attempt's outcome. `endpoint_unavailable`: the endpoint was deleted or disabled since the
 * event, so no request was made (the delivery fails at once).
 */
export type AttemptOutcome = 'succeeded' | 'failed_http' | 'gone' | 'failed_network' | 'address_not_allowed' | 'endpoint_unavailable';

export interface DeliveryObserver {
  /** An attempt was made; `seconds` is the request's duration, null when no request was made. */
  attempted(outcome: AttemptOutcome, seconds: number | null): void;
  /** A delivery succeeded (recorded once, under its lease): seconds from the event's occurrence to this success. */
  delivered(lagSeconds: number): void;
  /** An attempt's failure disabled its endpoint: a 410, or the end of a day of failures. */
  endpointDisabled(reason: 'gone' | 'failing'): void;
}

export function attemptOutcome(result: PostResult): AttemptOutcome {
  if (result.status >= 200 && result.status < 300) return 'succeeded';
  if (result.status === 410) return 'gone';
  if (result.status !== 0) return 'failed_http';
  // No answer: refused by the address policy, or a network failure (timeout, refused, DNS, TLS).
  return result.error === 'address_not_allowed' ? 'address_not_allowed' : 'failed_network';
}

/**
 * Seconds from the event's occurrence to `at`. The occurrence is the body's `timestamp` (the
 * producer's time, fixed at publishing: webhookBody), so the lag includes the outbox relay's.
 * Null, never a throw, if the body carries none: the delivery is recorded already.
 */
export function eventLagSeconds(body: string, at: Date): number | null {
  let occurred = NaN;
  try {
    const { timestamp } = JSON.parse(body) as { timestamp?: unknown };
    if (typeof timestamp === 'string') occurred = Date.parse(timestamp);
  } catch {
    return null;
  }
  return Number.isNaN(occurred) ? null : Math.max(0, (at.getTime() - occurred) / 1000);
}
