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
}

export function describeEndpoint(r: WebhookEndpointRecord): EndpointView {
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
  };
}

export async function listWebhookEndpoints(deps: { endpoints: WebhookEndpointStore }, projectId: string): Promise<EndpointView[]> {
  return (await deps.endpoints.list(projectId)).map(describeEndpoint);
}

/**
 * Deletes an endpoint, then fails its pending deliveries so the worker stops on them (a delivery
 * of a missing endpoint would be failed when due anyway: the order only saves work).
 */
export async function deleteWebhookEndpoint(deps: { endpoints: WebhookEndpointStore; deliveries: DeliveryStore; now: () => Date }, projectId: string, endpointId: string): Promise<void> {
  if (!(await deps.endpoints.delete(projectId, endpointId))) throw notFound('webhook_endpoint_not_found', `webhook endpoint ${endpointId} does not exist`);
  await deps.deliveries.failForEndpoint(projectId, endpointId, deps.now());
}
