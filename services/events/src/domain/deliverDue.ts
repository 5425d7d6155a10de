import { Webhook } from 'standardwebhooks';
import { DISABLE_AFTER_FAILING_MS, nextAttemptAt } from './retrySchedule.js';
import { openEndpoints, type OpenedEndpoint } from './openEndpoints.js';
import type { AttemptOutcome, DeliveryAttempt, DeliveryRecord, DeliveryStore, WebhookEndpointRecord, WebhookEndpointStore, WebhookPoster, WebhookProjectSettingsStore } from './ports.js';
import { attemptOutcome, eventLagSeconds, type DeliveryObserver } from './observeDelivery.js';

export interface DeliveryWorkerDeps {
  endpoints: WebhookEndpointStore;
  deliveries: DeliveryStore;
  post: WebhookPoster;
  masterKey: Buffer;
  allowPrivateAddresses: boolean;
  /** Per-project settings: an operator's private-address allowance, read for every batch of attempts. */
  settings: WebhookProjectSettingsStore;
  /** Delays after each failed attempt (retrySchedule.ts). */
  retryDelaysSeconds: readonly number[];
  /** This replica's lease owner ID (each claim adds its own number). */
  owner: string;
  /** Deliveries one claim takes and attempts at once (1 when unset). */
  batchSize?: number;
  /** How long a claimed delivery is this replica's: longer than an attempt's timeout. */
  leaseMs: number;
  now: () => Date;
  /** The metrics (observeDelivery.ts); none when absent. */
  observer?: DeliveryObserver;
}

/**
 * The headers of one attempt: the hosted service's, basic auth, custom headers, and a fresh
 * Standard Webhooks signature per valid secret (during a rotation's overlap two, space-separated
 * as the standard specifies: a receiver holding either secret verifies).
 */
export function deliveryHeaders(
  endpoint: WebhookEndpointRecord,
  delivery: Pick<DeliveryRecord, 'eventId' | 'type' | 'body'>,
  signingSecrets: string | readonly string[],
  basicAuthPassword: string | null,
  now: Date,
): Record<string, string> {
  const headers: Record<string, string> = { ...endpoint.customHeaders };
  headers['content-type'] = 'application/json';
  headers['x-corbado-webhook-event'] = delivery.type;
  if (endpoint.basicAuthUsername && basicAuthPassword !== null) {
    headers.authorization = `Basic ${Buffer.from(`${endpoint.basicAuthUsername}:${basicAuthPassword}`).toString('base64')}`;
  }
  headers['webhook-id'] = delivery.eventId;
  headers['webhook-timestamp'] = String(Math.floor(now.getTime() / 1000));
  headers['webhook-signature'] = (typeof signingSecrets === 'string' ? [signingSecrets] : signingSecrets).map((s) => new Webhook(s).sign(delivery.eventId, now, delivery.body)).join(' ');
  return headers;
}

let claims = 0;

/**
 * Claims up to `batchSize` due deliveries and makes one attempt at each (all at once). Answers
 * false when nothing was due. Each claim leases under its own token (`<owner>.<n>`), so two lanes
 * or replicas never hold the same delivery; the outcomes are written under that lease (token and
 * attempt count in the filter), in one command: a claim that lost its lease (it took longer than
 * the lease) writes nothing, and the other claim's attempt counts.
 */
export async function deliverDue(deps: DeliveryWorkerDeps): Promise<boolean> {
  return (await deliverDueBatch(deps)) > 0;
}

/** deliverDue answering how many deliveries it claimed (a lane that got fewer than it asked for pauses). */
export async function deliverDueBatch(deps: DeliveryWorkerDeps): Promise<number> {
  const start = deps.now();
  const owner = `${deps.owner}.${++claims}`;
  const batch = await deps.deliveries.claimDue(start, owner, new Date(start.getTime() + deps.leaseMs), deps.batchSize ?? 1);
  if (batch.length === 0) return 0;
  const endpoints = await openEndpoints(deps, batch, start);
  // Endpoints this batch's failures disabled: several deliveries of one endpoint may fail in it.
  const disabled = new Set<string>();
  const outcomes = await Promise.all(batch.map((delivery) => attemptDelivery(deps, delivery, endpoints.get(delivery.endpointId), disabled)));
  const written = await deps.deliveries.recordAttempts(outcomes, owner);
  // A success's lag is counted once it is saved under the lease. The store answers a count, not
  // which ones: a batch that partly lost its lease (an attempt slower than the lease) is left out.
  if (deps.observer && written === outcomes.length) {
    for (const o of outcomes) {
      const lag = o.outcome.status === 'delivered' ? eventLagSeconds(o.record.body, o.outcome.finishedAt ?? o.attempt.at) : null;
      if (lag !== null) deps.observer.delivered(lag);
    }
  }
  // A success ends an endpoint's failing period (once per endpoint of the batch).
  const recovered = new Set(outcomes.filter((o) => o.outcome.status === 'delivered').map((o) => o.record.endpointId));
  for (const endpointId of recovered) {
    const endpoint = endpoints.get(endpointId)!.record;
    if (endpoint.failingSince) await deps.endpoints.markSucceeded(endpoint.projectId, endpoint._id, deps.now());
  }
  return batch.length;
}

/**
 * One attempt at one delivery; a failure first counts against the endpoint (which may disable it:
 * then the delivery fails instead of being retried). Answers the outcome to record.
 */
async function attemptDelivery(deps: DeliveryWorkerDeps, delivery: DeliveryRecord, endpoint: OpenedEndpoint | undefined, disabled: Set<string>): Promise<AttemptOutcome & { record: DeliveryRecord }> {
  const start = deps.now();
  if (!endpoint || !endpoint.record.enabled) {
    const attempt: DeliveryAttempt = { at: start, status: 0, durationMs: 0, error: endpoint ? 'endpoint_disabled' : 'endpoint_deleted' };
    deps.observer?.attempted('endpoint_unavailable', null);
    return { record: delivery, attempt, outcome: { status: 'failed', finishedAt: start } };
  }
  const { record } = endpoint;
  const result = await deps.post(record.url, deliveryHeaders(record, delivery, endpoint.signingSecrets, endpoint.basicAuthPassword, start), delivery.body, endpoint.allowPrivate);
  const end = deps.now();
  const attempt: DeliveryAttempt = { at: start, status: result.status, durationMs: end.getTime() - start.getTime(), ...(result.error ? { error: result.error } : {}) };
  deps.observer?.attempted(attemptOutcome(result), attempt.durationMs / 1000);
  if (result.status >= 200 && result.status < 300) return { record: delivery, attempt, outcome: { status: 'delivered', finishedAt: end } };
  const gone = result.status === 410;
  const updated = await deps.endpoints.markFailed(record.projectId, record._id, end, new Date(end.getTime() - DISABLE_AFTER_FAILING_MS), gone);
  // The endpoint was enabled when this batch read it: disabled now means by a failure of this
  // batch, counted once per batch (a concurrent replica's disabling is then counted by both: rare,
  // and a count, not a state).
  if (updated?.enabled === false && !disabled.has(record._id)) {
    disabled.add(record._id);
    deps.observer?.endpointDisabled(gone ? 'gone' : 'failing');
  }
  const next = updated?.enabled === false ? null : nextAttemptAt(deps.retryDelaysSeconds, delivery.attempts + 1, end);
  return { record: delivery, attempt, outcome: next ? { status: 'pending', nextAttemptAt: next } : { status: 'failed', finishedAt: end } };
}
