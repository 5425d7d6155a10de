import { notFound } from '../../../runtime/errors.js';
import type { DeliveryStore, WebhookEndpointRecord, WebhookEndpointStore } from './ports.js';

/** The answer shape of an endpoint (hosted service's webhookEndpoint); no secret in it. */
export interface EndpointView {
  id: string;
  url: string;
  basicAuthUsername: string;
  customHeaders: Record<string, string>;
  subscribedEvents: string[];
  created: string;
  createdMs: bigint;
  updated: string;
  updatedMs: bigint;
  enabled: boolean;
  /** While the previous signing secret is still valid after a rotation. */
  previousSecretExpires?: string;
  previousSecretExpiresMs?: bigint;
  disabledReason?: string;
}

/** The answer shape; `now` decides whether a previous secret is still valid (the sweep removes it lazily). */
export function describeEndpoint(r: WebhookEndpointRecord, now: Date): EndpointView {
  const overlap = r.previousSecretExpiresAt && r.previousSecretExpiresAt > now ? r.previousSecretExpiresAt : null;
  return {
    id: r._id,
    url: r.url,
    basicAuthUsername: r.basicAuthUsername,
    customHeaders: r.customHeaders,
    subscribedEvents: r.subscribedEvents,
    created: r.createdAt.toISOString(),
    createdMs: BigInt(r.createdAt.getTime()),
    updated: r.updatedAt.toISOString(),
    updatedMs: BigInt(r.updatedAt.getTime()),
    enabled: r.enabled,
    ...(overlap ? { previousSecretExpires: overlap.toISOString(), previousSecretExpiresMs: BigInt(overlap.getTime()) } : {}),
    ...(!r.enabled && r.disabledReason ? { disabledReason: r.disabledReason } : {}),
  };
}

export async function listWebhookEndpoints(deps: { endpoints: WebhookEndpointStore; now: () => Date }, projectId: string): Promise<EndpointView[]> {
  const now = deps.now();
  return (await deps.endpoints.list(projectId)).map((r) => describeEndpoint(r, now));
}

/** The project's endpoint; another project's (or none) is not_found `webhook_endpoint_not_found`. */
export async function findWebhookEndpoint(deps: { endpoints: WebhookEndpointStore }, projectId: string, endpointId: string): Promise<WebhookEndpointRecord> {
  const record = await deps.endpoints.find(projectId, endpointId);
  if (!record) throw endpointNotFound(endpointId);
  return record;
}

export const endpointNotFound = (endpointId: string) => notFound('webhook_endpoint_not_found', `webhook endpoint ${endpointId} does not exist`);

/**
 * Deletes an endpoint, then fails its pending deliveries so the worker stops on them (a delivery
 * of a missing endpoint would be failed when due anyway: the order only saves work).
 */
export async function deleteWebhookEndpoint(deps: { endpoints: WebhookEndpointStore; deliveries: DeliveryStore; now: () => Date }, projectId: string, endpointId: string): Promise<void> {
  if (!(await deps.endpoints.delete(projectId, endpointId))) throw endpointNotFound(endpointId);
  await deps.deliveries.failForEndpoint(projectId, endpointId, deps.now());
}
