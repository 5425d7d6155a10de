/** The backend API's passkey events and passkey challenges RPCs: proto ⇄ domain mapping only. */
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  CreatePasskeyEventResponseSchema,
  DeletePasskeyEventResponseSchema,
  ListPasskeyChallengesResponseSchema,
  ListPasskeyEventsResponseSchema,
  UpdatePasskeyChallengeResponseSchema,
  type CeremonyService,
  type PasskeyChallengeSchema,
  type PasskeyEventSchema,
} from '../../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { projectOf } from '../../../runtime/context.js';
import { consumePasskeyChallenge } from '../domain/consumePasskeyChallenge.js';
import { createPasskeyEvent } from '../domain/createPasskeyEvent.js';
import { deletePasskeyEvent } from '../domain/deletePasskeyEvent.js';
import type { CeremonyDomainDeps } from '../domain/deps.js';
import { listPasskeyChallenges, type PasskeyChallengeView } from '../domain/listPasskeyChallenges.js';
import { listPasskeyEvents } from '../domain/listPasskeyEvents.js';
import type { PasskeyEventEntry } from '../store/userInsights.js';

type Rpcs = 'createPasskeyEvent' | 'listPasskeyEvents' | 'deletePasskeyEvent' | 'listPasskeyChallenges' | 'updatePasskeyChallenge';

export function passkeyEventAndChallengeRpcs(deps: CeremonyDomainDeps): Pick<ServiceImpl<typeof CeremonyService>, Rpcs> {
  return {
    async createPasskeyEvent(req, ctx) {
      const event = await createPasskeyEvent(deps, {
        projectId: projectOf(ctx),
        userId: req.userId,
        eventType: req.eventType,
        ...(req.expires !== undefined ? { expires: Number(req.expires) } : {}),
        processId: req.processId,
        clientEnvId: req.clientEnvId,
        credentialId: req.credentialId,
      });
      return create(CreatePasskeyEventResponseSchema, { passkeyEvent: passkeyEventMessage(req.userId, event) });
    },
    async listPasskeyEvents(req, ctx) {
      const page = await listPasskeyEvents(deps, { projectId: projectOf(ctx), userId: req.userId, filter: req.filter, sort: req.sort, page: req.page, pageSize: req.pageSize });
      return create(ListPasskeyEventsResponseSchema, {
        passkeyEvents: page.events.map((e) => passkeyEventMessage(req.userId, e)),
        paging: { page: page.page, totalPages: page.totalPages, totalItems: page.totalItems },
      });
    },
    async deletePasskeyEvent(req, ctx) {
      await deletePasskeyEvent(deps, projectOf(ctx), req.userId, req.passkeyEventId);
      return create(DeletePasskeyEventResponseSchema, { result: {} });
    },
    async listPasskeyChallenges(req, ctx) {
      const page = await listPasskeyChallenges(deps, { projectId: projectOf(ctx), userId: req.userId, filter: req.filter, sort: req.sort, page: req.page, pageSize: req.pageSize });
      return create(ListPasskeyChallengesResponseSchema, {
        passkeyChallenges: page.challenges.map(passkeyChallengeMessage),
        paging: { page: page.page, totalPages: page.totalPages, totalItems: page.totalItems },
      });
    },
    async updatePasskeyChallenge(req, ctx) {
      const challenge = await consumePasskeyChallenge(deps, { projectId: projectOf(ctx), userId: req.userId, challengeId: req.passkeyChallengeId, status: req.status });
      return create(UpdatePasskeyChallengeResponseSchema, { passkeyChallenge: passkeyChallengeMessage(challenge) });
    },
  };
}

function passkeyEventMessage(userId: string, e: PasskeyEventEntry): MessageInitShape<typeof PasskeyEventSchema> {
  return {
    passkeyEventId: e.id,
    userId,
    eventType: e.eventType,
    clientEnvId: e.clientEnvId ?? '',
    processId: e.processId ?? '',
    credentialId: e.credentialId ?? '',
    ...(e.expires !== undefined ? { expires: BigInt(e.expires) } : {}),
    // The reference's timestamp format: yyyy-MM-ddTHH:mm:ss in UTC.
    created: e.createdAt.toISOString().slice(0, 19),
  };
}

function passkeyChallengeMessage(c: PasskeyChallengeView): MessageInitShape<typeof PasskeyChallengeSchema> {
  return {
    challengeId: c.challengeId,
    type: c.type,
    value: c.value,
    status: c.status,
    created: BigInt(Math.floor(c.created.getTime() / 1000)),
    expires: BigInt(Math.floor(c.expires.getTime() / 1000)),
  };
}
