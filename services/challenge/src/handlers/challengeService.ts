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
import type { ChallengeType } from '../store/challenges.js';
import type { ChallengeView } from '../domain/challengeState.js';
import { createChallenge, type CreateChallengeDeps, type CreateChallengeInput } from '../domain/createChallenge.js';
import { getChallenge } from '../domain/getChallenge.js';
import { sendNotification } from '../domain/delivery/sendNotification.js';
import { verifyChallenge } from '../domain/verifyChallenge.js';


const unixSeconds = (at: Date) => BigInt(Math.floor(at.getTime() / 1000));

/** The Challenge message without `value`: only B1's creation response carries it. */
function challengeMessage(view: ChallengeView): MessageInitShape<typeof ChallengeSchema> {
  return { challengeId: view.challengeId, type: view.type, identifierValue: view.identifierValue, expires: unixSeconds(view.expiresAt), status: view.status };
}

/** The fields B1 and CreateAndDeliverChallenge share, as createChallenge's input. */
function createInput(
  deliver: CreateChallengeInput['deliver'],
  projectId: string,
  req: { userId: string; challengeType: string; identifierValue: string; challengeMetadata?: Record<string, unknown>; lifetimeSeconds?: bigint },
  clientAddress: string,
): CreateChallengeInput {
  return {
    deliver,
    projectId,
    userId: req.userId,
    // protovalidate has already restricted it to the three types.
    type: req.challengeType as ChallengeType,
    identifierValue: req.identifierValue,
    metadata: req.challengeMetadata,
    lifetimeSeconds: req.lifetimeSeconds === undefined ? undefined : Number(req.lifetimeSeconds),
    clientAddress,
  };
}

export function challengeServiceImpl(deps: CreateChallengeDeps): ServiceImpl<typeof ChallengeService> {
  return {
    async createChallenge(req, ctx) {
      // B1 comes from the application's server: the end user's address is the one it reports.
      const created = await createChallenge(deps, createInput('project', projectOf(ctx), req, req.clientInformation?.remoteAddress ?? ''));
      // B1 is the one answer that carries the value (for the application to deliver).
      return create(CreateChallengeResponseSchema, { challenge: { ...challengeMessage(created), value: created.value } });
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
      // The frontend flows forward the browser's address.
      const created = await createChallenge(deps, createInput('always', projectOf(ctx), req, ctx.values.get(clientAddressKey) ?? ''));
      // The value went to the user's inbox or phone; it never goes back to the caller.
      return create(CreateAndDeliverChallengeResponseSchema, { challenge: challengeMessage(created) });
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
      // The connect service calls this as it deletes the user: no challenge may take it as existing.
      deps.users.forget?.(projectOf(ctx), req.userId);
      const deleted = await deps.store.deleteForUser(projectOf(ctx), req.userId);
      return create(DeleteUserChallengesResponseSchema, { deleted: BigInt(deleted) });
    },
  };
}
