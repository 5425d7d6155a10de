/** AuthEventService RPCs (backend API /v2/users/{userID}/authEvents): proto ⇄ domain mapping only. */
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { AuthEventService, CreateAuthEventResponseSchema } from '../../../../gen/passkeyauth/ceremony/v1/auth_event_service_pb.js';
import { projectOf } from '../../../runtime/context.js';
import type { CeremonyDomainDeps } from '../domain/deps.js';
import { recordAuthEvent } from '../domain/recordAuthEvent.js';

export function authEventServiceImpl(deps: CeremonyDomainDeps): ServiceImpl<typeof AuthEventService> {
  return {
    async createAuthEvent(req, ctx) {
      // protovalidate has required clientInformation with its address and user agent.
      const ci = req.clientInformation!;
      const e = await recordAuthEvent(deps, {
        projectId: projectOf(ctx),
        userId: req.userId,
        username: req.username,
        eventType: req.eventType,
        method: req.method,
        status: req.status,
        client: { userAgent: ci.userAgent, remoteAddress: ci.remoteAddress },
      });
      return create(CreateAuthEventResponseSchema, {
        authEvent: {
          authEventId: e._id,
          userId: e.userId,
          username: e.username,
          eventType: e.eventType,
          method: e.method,
          // The reference's timestamp format: yyyy-MM-ddTHH:mm:ss in UTC.
          created: e.createdAt.toISOString().slice(0, 19),
          status: e.status,
        },
      });
    },
  };
}
