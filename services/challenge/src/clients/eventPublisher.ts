/** The outbox relay's adapter: hands a batch of outbox events to the events service. */
import type { Client } from '@connectrpc/connect';
import type { EventService } from '../../../../gen/passkeyauth/events/v1/event_service_pb.js';
import type { EventPublisher } from '../../../runtime/outbox.js';

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
