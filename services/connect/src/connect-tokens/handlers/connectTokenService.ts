/** ConnectTokenService RPCs (backend API /v2/connectTokens): proto ⇄ domain mapping only. */
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  ConnectTokenSchema,
  ConnectTokenService,
  CreateConnectTokenResponseSchema,
  DeleteConnectTokenResponseSchema,
  ListConnectTokensResponseSchema,
  UpdateConnectTokenResponseSchema,
} from '../../../../../gen/passkeyauth/connect/v1/connect_token_service_pb.js';
import { projectOf } from '../../../../runtime/context.js';
import type { ConnectTokenDeps } from '../domain/connectTokenDeps.js';
import { createConnectToken } from '../domain/createConnectToken.js';
import { deleteConnectToken } from '../domain/deleteConnectToken.js';
import { listConnectTokens } from '../domain/listConnectTokens.js';
import { updateConnectToken } from '../domain/updateConnectToken.js';
import type { ConnectTokenRecord } from '../store/connectTokens.js';

/** The reference connectToken; `secret` only when given (the create response). */
function connectTokenMessage(t: ConnectTokenRecord, secret?: string): MessageInitShape<typeof ConnectTokenSchema> {
  return {
    id: t._id,
    tokenType: t.type,
    data: { identifier: t.identifier, ...(t.displayName ? { displayName: t.displayName } : {}) },
    connectTokenStatus: t.status,
    ...(secret !== undefined ? { secret } : {}),
    // Seconds since the epoch, as the reference's `expires`.
    expires: BigInt(Math.floor(t.expiresAt.getTime() / 1000)),
  };
}

export function connectTokenServiceImpl(deps: ConnectTokenDeps): ServiceImpl<typeof ConnectTokenService> {
  return {
    async createConnectToken(req, ctx) {
      const { record, secret } = await createConnectToken(deps, {
        projectId: projectOf(ctx),
        type: req.type,
        identifier: req.data?.identifier ?? '',
        displayName: req.data?.displayName,
        maxLifetimeInSeconds: req.maxLifetimeInSeconds,
      });
      return create(CreateConnectTokenResponseSchema, { connectToken: connectTokenMessage(record, secret) });
    },
    async listConnectTokens(req, ctx) {
      const list = await listConnectTokens(deps, { projectId: projectOf(ctx), filter: req.filter, sort: req.sort, page: req.page, pageSize: req.pageSize });
      return create(ListConnectTokensResponseSchema, { connectTokens: list.items.map((t) => connectTokenMessage(t)), paging: list.paging });
    },
    async updateConnectToken(req, ctx) {
      await updateConnectToken(deps, { projectId: projectOf(ctx), id: req.connectTokenId, status: req.status });
      return create(UpdateConnectTokenResponseSchema, { result: {} });
    },
    async deleteConnectToken(req, ctx) {
      await deleteConnectToken(deps, { projectId: projectOf(ctx), id: req.connectTokenId });
      return create(DeleteConnectTokenResponseSchema, { result: {} });
    },
  };
}
