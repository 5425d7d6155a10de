/** MeService RPCs (frontend /v2/me/*, session or refresh tokens): proto ⇄ domain mapping only. */
import { create } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import {
  AppendPasskeyFinishResponseSchema,
  AppendPasskeyStartResponseSchema,
  CreateMyIdentifierResponseSchema,
  DeleteMeResponseSchema,
  DeleteMyIdentifierResponseSchema,
  DeleteMyPasskeyResponseSchema,
  GetMeResponseSchema,
  GetUserDetailsConfigResponseSchema,
  ListMyPasskeysResponseSchema,
  MeService,
  UpdateMeResponseSchema,
  UpdateMyIdentifierResponseSchema,
  VerifyIdentifierFinishResponseSchema,
  VerifyIdentifierStartResponseSchema,
} from '../../../../../gen/passkeyauth/connect/v1/me_service_pb.js';
import { refreshTokenKey, tokenKindKey, tokenSessionIdKey, tokenUserIdKey } from '../../../../runtime/context.js';
import { requireActiveRefreshToken } from '../../sessions/index.js';
import { addMyIdentifier } from '../domain/addMyIdentifier.js';
import { changeMyIdentifier } from '../domain/changeMyIdentifier.js';
import { deleteMyAccount } from '../domain/deleteMyAccount.js';
import { deleteMyPasskey, listMyPasskeys } from '../domain/myPasskeys.js';
import { finishIdentifierVerification } from '../domain/finishIdentifierVerification.js';
import { finishMyAppend } from '../domain/finishMyAppend.js';
import { getMe, getUserDetailsConfig, updateMyName } from '../domain/myDetails.js';
import type { MeCall, MeDeps } from '../domain/meDeps.js';
import { removeMyIdentifier } from '../domain/removeMyIdentifier.js';
import { startIdentifierVerification } from '../domain/startIdentifierVerification.js';
import { startMyAppend } from '../domain/startMyAppend.js';
import { clientSnapshot, flowCall } from '../../shared/handlers/flowRequest.js';
import { connectPasskeyMessage } from '../../shared/handlers/connectPasskeyMessage.js';

function meCall(ctx: HandlerContext): MeCall {
  return { ...flowCall(ctx), userId: ctx.values.get(tokenUserIdKey), sessionId: ctx.values.get(tokenSessionIdKey) };
}

/**
 * meCall, also for a refresh token (web-core's SessionService authenticates /v2/me/* with it): the
 * user and session are those of the session the token names, once it is checked to be that active
 * session's current token (requireActiveRefreshToken.ts).
 */
async function signedInCall(deps: MeDeps, ctx: HandlerContext): Promise<MeCall> {
  const refreshToken = ctx.values.get(refreshTokenKey);
  if (ctx.values.get(tokenKindKey) !== 'refresh' || !refreshToken) return meCall(ctx);
  const call = flowCall(ctx);
  const session = await requireActiveRefreshToken(deps, { projectId: call.projectId, refreshToken, client: call });
  return { ...call, userId: session.userId, sessionId: session._id };
}

export function meServiceImpl(deps: MeDeps): ServiceImpl<typeof MeService> {
  return {
    async getMe(_req, ctx) {
      const me = await getMe(deps, await signedInCall(deps, ctx));
      return create(GetMeResponseSchema, { id: me.id, fullName: me.fullName, identifiers: me.identifiers, socialAccounts: me.socialAccounts });
    },
    async listMyPasskeys(_req, ctx) {
      const passkeys = await listMyPasskeys(deps, await signedInCall(deps, ctx));
      return create(ListMyPasskeysResponseSchema, {
        passkeys: passkeys.map(connectPasskeyMessage),
        paging: { page: 1, totalPages: 1, totalItems: passkeys.length },
      });
    },
    async deleteMyPasskey(req, ctx) {
      await deleteMyPasskey(deps, await signedInCall(deps, ctx), req.credentialId);
      return create(DeleteMyPasskeyResponseSchema, { id: req.credentialId });
    },
    async appendPasskeyStart(req, ctx) {
      const r = await startMyAppend(deps, await signedInCall(deps, ctx), { client: clientSnapshot(req.clientInformation!), clientEnvHandle: req.clientInformation!.clientEnvHandle });
      return create(AppendPasskeyStartResponseSchema, { ...r });
    },
    async appendPasskeyFinish(req, ctx) {
      await finishMyAppend(deps, await signedInCall(deps, ctx), { attestationResponse: req.attestationResponse, client: clientSnapshot(req.clientInformation!) });
      return create(AppendPasskeyFinishResponseSchema, { result: {} });
    },
    async verifyIdentifierStart(req, ctx) {
      await startIdentifierVerification(deps, await signedInCall(deps, ctx), req.identifierId);
      return create(VerifyIdentifierStartResponseSchema, { result: {} });
    },
    async verifyIdentifierFinish(req, ctx) {
      await finishIdentifierVerification(deps, await signedInCall(deps, ctx), { identifierId: req.identifierId, code: req.code });
      return create(VerifyIdentifierFinishResponseSchema, { result: {} });
    },
    async updateMe(req, ctx) {
      // Required by the validation rules, so present here.
      await updateMyName(deps, await signedInCall(deps, ctx), req.fullName!);
      return create(UpdateMeResponseSchema, { result: {} });
    },
    async deleteMe(_req, ctx) {
      await deleteMyAccount(deps, await signedInCall(deps, ctx));
      return create(DeleteMeResponseSchema, { result: {} });
    },
    async createMyIdentifier(req, ctx) {
      await addMyIdentifier(deps, await signedInCall(deps, ctx), { identifierType: req.identifierType, value: req.value });
      return create(CreateMyIdentifierResponseSchema, { result: {} });
    },
    async updateMyIdentifier(req, ctx) {
      await changeMyIdentifier(deps, await signedInCall(deps, ctx), { identifierId: req.identifierId, identifierType: req.identifierType, value: req.value });
      return create(UpdateMyIdentifierResponseSchema, { result: {} });
    },
    async deleteMyIdentifier(req, ctx) {
      await removeMyIdentifier(deps, await signedInCall(deps, ctx), req.identifierId);
      return create(DeleteMyIdentifierResponseSchema, { result: {} });
    },
    getUserDetailsConfig() {
      return create(GetUserDetailsConfigResponseSchema, getUserDetailsConfig());
    },
  };
}
