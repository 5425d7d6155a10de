/** ChallengeService RPCs: proto ⇄ domain mapping only. */
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  ChallengeService,
  CreateChallengeResponseSchema,
  DeleteUserChallengesResponseSchema,
} from '../../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { projectOf } from '../../../runtime/context.js';
import type { ChallengeType } from '../domain/challengeRules.js';
import { createChallenge, type CreateChallengeDeps } from '../domain/createChallenge.js';

export function challengeServiceImpl(deps: CreateChallengeDeps): ServiceImpl<typeof ChallengeService> {
  return {
    async createChallenge(req, ctx) {
      const created = await createChallenge(deps, {
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
          expires: BigInt(Math.floor(created.expiresAt.getTime() / 1000)),
          status: created.status,
        },
      });
    },
    async deleteUserChallenges(req, ctx) {
      const deleted = await deps.store.deleteForUser(projectOf(ctx), req.userId);
      return create(DeleteUserChallengesResponseSchema, { deleted: BigInt(deleted) });
    },
  };
}
