import type { DeliveryRecord, DeliveryStore, WebhookEndpointStore } from './ports.js';

/** An event as a producer's outbox hands it over. */
export interface PublishedEvent {
  id: string;
  projectId: string;
  type: string;
  occurredAt: Date;
  data: unknown;
  ip: string;
  os: string;
  browser: string;
}

/**
 * The hosted service's webhook body, exactly its fields (the event ID travels as webhook-id).
 * customHeaders in metadata are the endpoint's, as the hosted service sends them.
 */
export function webhookBody(event: PublishedEvent, customHeaders: Record<string, string>): string {
  return JSON.stringify({
    type: event.type,
    metadata: { ip: event.ip, os: event.os, browser: event.browser, customHeaders },
    timestamp: event.occurredAt.toISOString(),
    data: event.data,
  });
}

/**
 * One delivery per subscribed, enabled endpoint of the event's project, inserted only if new
 * (ID `<eventId>:<endpointId>`), so a relay that publishes a batch again after a lost answer makes
 * no second delivery. A project without endpoints stores nothing.
 */
export async function publishEvents(deps: { endpoints: WebhookEndpointStore; deliveries: DeliveryStore; now: () => Date }, events: PublishedEvent[]): Promise<number> {
  const now = deps.now();
  const records: DeliveryRecord[] = [];
  // One read per project for the whole batch: its enabled endpoints subscribed to any type in it.
  const typesByProject = new Map<string, Set<string>>();
  for (const event of events) typesByProject.set(event.projectId, (typesByProject.get(event.projectId) ?? new Set()).add(event.type));
  const endpointsOf = new Map(await Promise.all([...typesByProject].map(async ([projectId, types]) => [projectId, await deps.endpoints.listSubscribed(projectId, [...types])] as const)));
  for (const event of events) {
    for (const endpoint of endpointsOf.get(event.projectId) ?? []) {
      if (!endpoint.subscribedEvents.includes(event.type)) continue;
      records.push({
        _id: `${event.id}:${endpoint._id}`,
        projectId: event.projectId,
        endpointId: endpoint._id,
        eventId: event.id,
        type: event.type,
        body: webhookBody(event, endpoint.customHeaders),
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        log: [],
        createdAt: now,
      });
    }
  }
  return records.length ? deps.deliveries.insertNew(records) : 0;
}
