/** ChallengeService RPCs: proto ⇄ domain mapping only. */
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  ChallengeService,
  CreateAndDeliverChallengeResponseSchema,
  CreateChallengeResponseSchema,
  DeleteUserChallengesResponseSchema,
  GetChallengeResponseSchema,
  SendNotificationResponseSchema,
  VerifyChallengeResponseSchema,
  type ChallengeSchema,
} from '../../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { clientAddressKey, projectOf } from '../../../runtime/context.js';
import type { ChallengeType } from '../domain/challengeRules.js';
import type { ChallengeView } from '../domain/challengeState.js';
import { createChallenge, type CreateChallengeDeps } from '../domain/createChallenge.js';
import { getChallenge } from '../domain/getChallenge.js';
import { sendNotification } from '../domain/delivery/sendNotification.js';
import { verifyChallenge } from '../domain/verifyChallenge.js';


const unixSeconds = (at: Date) => BigInt(Math.floor(at.getTime() / 1000));

/** The Challenge message without `value`: only B1's creation response carries it. */
function challengeMessage(view: ChallengeView): MessageInitShape<typeof ChallengeSchema> {
  return { challengeId: view.challengeId, type: view.type, identifierValue: view.identifierValue, expires: unixSeconds(view.expiresAt), status: view.status };
}

export function challengeServiceImpl(deps: CreateChallengeDeps): ServiceImpl<typeof ChallengeService> {
  return {
    async createChallenge(req, ctx) {
      const created = await createChallenge(deps, {
        deliver: 'project',
        projectId: projectOf(ctx),
        userId: req.userId,
        // protovalidate has already restricted it to the three types.
        type: req.challengeType as ChallengeType,
        identifierValue: req.identifierValue,
        metadata: req.challengeMetadata,
        lifetimeSeconds: req.lifetimeSeconds === undefined ? undefined : Number(req.lifetimeSeconds),
      });
      return create(CreateChallengeResponseSchema, {
        challenge: {
          challengeId: created.challengeId,
          type: created.type,
          identifierValue: created.identifierValue,
          value: created.value,
          expires: unixSeconds(created.expiresAt),
          status: created.status,
        },
      });
    },
    async verifyChallenge(req, ctx) {
      const view = await verifyChallenge(deps, {
        projectId: projectOf(ctx),
        userId: req.userId,
        challengeId: req.challengeId,
        value: req.value,
        clientAddress: ctx.values.get(clientAddressKey),
      });
      return create(VerifyChallengeResponseSchema, { challenge: challengeMessage(view) });
    },
    async getChallenge(req, ctx) {
      const view = await getChallenge(deps, { projectId: projectOf(ctx), userId: req.userId, challengeId: req.challengeId });
      return create(GetChallengeResponseSchema, { challenge: challengeMessage(view) });
    },
    async createAndDeliverChallenge(req, ctx) {
      const created = await createChallenge(deps, {
        deliver: 'always',
        projectId: projectOf(ctx),
        userId: req.userId,
        type: req.challengeType as ChallengeType,
        identifierValue: req.identifierValue,
        metadata: req.challengeMetadata,
        lifetimeSeconds: req.lifetimeSeconds === undefined ? undefined : Number(req.lifetimeSeconds),
      });
      // The value went to the user's inbox or phone; it never goes back to the caller.
      return create(CreateAndDeliverChallengeResponseSchema, { challenge: challengeMessage({ ...created, status: 'pending' }) });
    },
    async sendNotification(req, ctx) {
      const project = await deps.projects.get(projectOf(ctx));
      await sendNotification(deps.delivery, {
        email: req.email,
        kind: req.kind as 'passkey_added',
        details: { passkeyName: req.details.passkeyName, device: req.details.device },
        appName: project.appName,
        language: req.details.language,
      });
      return create(SendNotificationResponseSchema, {});
    },
    async deleteUserChallenges(req, ctx) {
      const deleted = await deps.store.deleteForUser(projectOf(ctx), req.userId);
      return create(DeleteUserChallengesResponseSchema, { deleted: BigInt(deleted) });
    },
  };
}
