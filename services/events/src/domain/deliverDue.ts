import { Webhook } from 'standardwebhooks';
import { DISABLE_AFTER_FAILING_MS, nextAttemptAt } from './retrySchedule.js';
import type { DeliveryAttempt, DeliveryRecord, DeliveryStore, WebhookEndpointRecord, WebhookEndpointStore, WebhookPoster, WebhookProjectSettingsStore } from './ports.js';
import { attemptOutcome, eventLagSeconds, type DeliveryObserver } from './observeDelivery.js';
import { privateAddressesAllowed } from './projectSettings.js';
import { openSecret, secretAad } from './sealSecret.js';

export interface DeliveryWorkerDeps {
  endpoints: WebhookEndpointStore;
  deliveries: DeliveryStore;
  post: WebhookPoster;
  masterKey: Buffer;
  allowPrivateAddresses: boolean;
  /** Per-project settings: an operator's private-address allowance, read at every attempt. */
  settings: WebhookProjectSettingsStore;
  /** Delays after each failed attempt (retrySchedule.ts). */
  retryDelaysSeconds: readonly number[];
  /** This replica's lease owner ID. */
  owner: string;
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

/**
 * Claims one due delivery and makes one attempt. Answers false when nothing was due. The outcome
 * is written under the lease (owner and attempt count in the filter): a replica that lost its
 * lease (it took longer than the lease) writes nothing, and the other replica's attempt counts.
 */
export async function deliverDue(deps: DeliveryWorkerDeps): Promise<boolean> {
  const start = deps.now();
  const delivery = await deps.deliveries.claimDue(start, deps.owner, new Date(start.getTime() + deps.leaseMs));
  if (!delivery) return false;
  const endpoint = await deps.endpoints.find(delivery.projectId, delivery.endpointId);
  if (!endpoint || !endpoint.enabled) {
    const attempt: DeliveryAttempt = { at: start, status: 0, durationMs: 0, error: endpoint ? 'endpoint_disabled' : 'endpoint_deleted' };
    await deps.deliveries.recordAttempt(delivery, deps.owner, attempt, { status: 'failed', finishedAt: start });
    deps.observer?.attempted('endpoint_unavailable', null);
    return true;
  }
  const signingAad = secretAad(endpoint.projectId, endpoint._id, 'signing');
  const signingSecrets = [openSecret(deps.masterKey, signingAad, endpoint.signingSecret)];
  // The previous secret signs too while its overlap runs; after it, it is ignored (and swept).
  if (endpoint.previousSigningSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > start) {
    signingSecrets.push(openSecret(deps.masterKey, signingAad, endpoint.previousSigningSecret));
  }
  const password = endpoint.basicAuthPassword ? openSecret(deps.masterKey, secretAad(endpoint.projectId, endpoint._id, 'basic'), endpoint.basicAuthPassword) : null;
  const allowPrivate = await privateAddressesAllowed(deps, endpoint.projectId);
  const result = await deps.post(endpoint.url, deliveryHeaders(endpoint, delivery, signingSecrets, password, start), delivery.body, allowPrivate);
  const end = deps.now();
  const attempt: DeliveryAttempt = { at: start, status: result.status, durationMs: end.getTime() - start.getTime(), ...(result.error ? { error: result.error } : {}) };
  const attempts = delivery.attempts + 1;
  deps.observer?.attempted(attemptOutcome(result), attempt.durationMs / 1000);
  if (result.status >= 200 && result.status < 300) {
    if (await deps.deliveries.recordAttempt(delivery, deps.owner, attempt, { status: 'delivered', finishedAt: end })) {
      if (endpoint.failingSince) await deps.endpoints.markSucceeded(endpoint.projectId, endpoint._id, end);
      const lag = deps.observer ? eventLagSeconds(delivery.body, end) : null;
      if (lag !== null) deps.observer?.delivered(lag);
    }
    return true;
  }
  const gone = result.status === 410;
  const updated = await deps.endpoints.markFailed(endpoint.projectId, endpoint._id, end, new Date(end.getTime() - DISABLE_AFTER_FAILING_MS), gone);
  // The endpoint was enabled when this attempt began: disabled now means by this failure (or a
  // concurrent replica's, then counted by both: rare, and a count, not a state).
  if (updated?.enabled === false) deps.observer?.endpointDisabled(gone ? 'gone' : 'failing');
  const next = updated?.enabled === false ? null : nextAttemptAt(deps.retryDelaysSeconds, attempts, end);
  await deps.deliveries.recordAttempt(delivery, deps.owner, attempt, next ? { status: 'pending', nextAttemptAt: next } : { status: 'failed', finishedAt: end });
  return true;
}
