/** The producers' adapters to the events service (connect, ceremony and challenge use the same): their outbox relay hands a batch of events over; their subscription check asks which types a project's endpoints subscribe to. */
import type { Client } from '@connectrpc/connect';
import type { EventService } from '../../gen/passkeyauth/events/v1/event_service_pb.js';
import type { EventPublisher } from './outbox.js';
import type { SubscribedTypesLookup } from './subscribedTypesCache.js';

export function rpcEventPublisher(events: Client<typeof EventService>): EventPublisher {
  return async (batch) => {
    await events.publishEvents(
      {
        events: batch.map((e) => ({
          id: e._id,
          projectId: e.projectId,
          type: e.type,
          occurredMs: BigInt(e.occurredAt.getTime()),
          dataJson: JSON.stringify(e.data),
          ip: e.ip,
          os: e.os,
          browser: e.browser,
        })),
      },
      { timeoutMs: 10_000 },
    );
  };
}

/** Short timeout: the answer is waited for before a change (once per project per cache time); without it the event is written. */
export function rpcSubscribedEventTypes(events: Client<typeof EventService>): SubscribedTypesLookup {
  return async (projectId) => {
    const r = await events.getSubscribedEventTypes({ projectId }, { timeoutMs: 1000 });
    return { types: r.eventTypes, validMs: Number(r.validMs) };
  };
}
