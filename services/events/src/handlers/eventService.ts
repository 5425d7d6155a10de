/** EventService handlers: request ⇄ domain, the project from the authenticated call. */
import type { ServiceImpl } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import { EventService, ListWebhookDeliveriesResponseSchema, WebhookEndpointSchema } from '../../../../gen/passkeyauth/events/v1/event_service_pb.js';
import { projectOf } from '../../../runtime/context.js';
import { invalidArgument } from '../../../runtime/errors.js';
import { createWebhookEndpoint, type EndpointDeps } from '../domain/createWebhookEndpoint.js';
import { listWebhookDeliveries } from '../domain/listWebhookDeliveries.js';
import { deleteWebhookEndpoint, describeEndpoint, findWebhookEndpoint, listWebhookEndpoints } from '../domain/manageWebhookEndpoints.js';
import type { DeliveryStore } from '../domain/ports.js';
import { publishEvents, type PublishedEvent } from '../domain/publishEvents.js';
import { rotateSigningSecret } from '../domain/rotateSigningSecret.js';
import { getSubscribedEventTypes } from '../domain/subscribedEventTypes.js';
import { updateWebhookEndpoint } from '../domain/updateWebhookEndpoint.js';

export type EventServiceDeps = EndpointDeps & { deliveries: DeliveryStore };

function parseData(json: string, index: number): unknown {
  try {
    return JSON.parse(json || '{}');
  } catch {
    throw invalidArgument('validation_error', `events[${index}].dataJson is not JSON`, [{ field: `events[${index}].dataJson`, message: 'must be JSON' }]);
  }
}

export function eventServiceImpl(deps: EventServiceDeps): ServiceImpl<typeof EventService> {
  return {
    async createWebhookEndpoint(req, ctx) {
      const { record, signingSecret } = await createWebhookEndpoint(deps, {
        projectId: projectOf(ctx),
        url: req.url,
        basicAuthUsername: req.basicAuthUsername,
        basicAuthPassword: req.basicAuthPassword,
        subscribedEvents: req.subscribedEvents,
        customHeaders: req.customHeaders,
      });
      return { webhookEndpoint: create(WebhookEndpointSchema, { ...describeEndpoint(record, deps.now()), signingSecret }) };
    },
    async getWebhookEndpoint(req, ctx) {
      return { webhookEndpoint: create(WebhookEndpointSchema, describeEndpoint(await findWebhookEndpoint(deps, projectOf(ctx), req.webhookEndpointId), deps.now())) };
    },
    async updateWebhookEndpoint(req, ctx) {
      const record = await updateWebhookEndpoint(deps, {
        projectId: projectOf(ctx),
        endpointId: req.webhookEndpointId,
        url: req.url,
        basicAuthUsername: req.basicAuthUsername,
        basicAuthPassword: req.basicAuthPassword,
        subscribedEvents: req.subscribedEvents,
        customHeaders: req.customHeaders,
        removeCustomHeaders: req.removeCustomHeaders,
        enabled: req.enabled,
      });
      return { webhookEndpoint: create(WebhookEndpointSchema, describeEndpoint(record, deps.now())) };
    },
    async rotateWebhookSigningSecret(req, ctx) {
      const { record, signingSecret } = await rotateSigningSecret(deps, { projectId: projectOf(ctx), endpointId: req.webhookEndpointId, overlapSeconds: req.overlapSeconds });
      return { webhookEndpoint: create(WebhookEndpointSchema, { ...describeEndpoint(record, deps.now()), signingSecret }) };
    },
    async listWebhookDeliveries(req, ctx) {
      const list = await listWebhookDeliveries(deps, { projectId: projectOf(ctx), endpointId: req.webhookEndpointId, filter: req.filter, sort: req.sort, page: req.page, pageSize: req.pageSize });
      return create(ListWebhookDeliveriesResponseSchema, { deliveries: list.items, paging: list.paging });
    },
    async listWebhookEndpoints(_req, ctx) {
      return { webhookEndpoints: (await listWebhookEndpoints(deps, projectOf(ctx))).map((v) => create(WebhookEndpointSchema, v)) };
    },
    async deleteWebhookEndpoint(req, ctx) {
      await deleteWebhookEndpoint(deps, projectOf(ctx), req.webhookEndpointId);
      return {};
    },
    async publishEvents(req) {
      const events: PublishedEvent[] = req.events.map((e, i) => ({
        id: e.id,
        projectId: e.projectId,
        type: e.type,
        occurredAt: new Date(Number(e.occurredMs)),
        data: parseData(e.dataJson, i),
        ip: e.ip,
        os: e.os,
        browser: e.browser,
      }));
      return { deliveriesCreated: await publishEvents(deps, events) };
    },
    async getSubscribedEventTypes(req) {
      const { types, validMs } = await getSubscribedEventTypes(deps, req.projectId);
      return { eventTypes: types, validMs: BigInt(validMs) };
    },
  };
}
