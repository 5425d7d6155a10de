/** UserService RPCs: proto ⇄ domain mapping only. */
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import {
  CreateIdentifierResponseSchema,
  CreateSocialAccountResponseSchema,
  CreateUserResponseSchema,
  DeleteIdentifierResponseSchema,
  DeleteUserResponseSchema,
  GetUserResponseSchema,
  IdentifierSchema,
  ListIdentifiersResponseSchema,
  ListSocialAccountsResponseSchema,
  ListUserSocialAccountsResponseSchema,
  SocialAccountSchema,
  UpdateIdentifierResponseSchema,
  UpdateUserResponseSchema,
  UserSchema,
  UserService,
} from '../../../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { loggerKey, projectOf } from '../../../../runtime/context.js';
import { createIdentifier } from '../domain/createIdentifier.js';
import { createSocialAccount } from '../domain/createSocialAccount.js';
import { createUser } from '../domain/createUser.js';
import { deleteIdentifier } from '../domain/deleteIdentifier.js';
import { deleteUser } from '../domain/deleteUser.js';
import { getUser } from '../domain/getUser.js';
import { listIdentifiers } from '../domain/listIdentifiers.js';
import { listSocialAccounts, listUserSocialAccounts } from '../domain/listSocialAccounts.js';
import { updateIdentifier } from '../domain/updateIdentifier.js';
import { updateUser } from '../domain/updateUser.js';
import type { UserDeps } from '../domain/userDeps.js';
import type { IdentifierRecord } from '../store/identifiers.js';
import type { SocialAccountRecord } from '../store/socialAccounts.js';
import type { UserRecord } from '../store/users.js';

function userMessage(u: UserRecord): MessageInitShape<typeof UserSchema> {
  return { userId: u._id, fullName: u.fullName, status: u.status, explicitWebauthnId: u.explicitWebauthnId };
}

function identifierMessage(i: IdentifierRecord): MessageInitShape<typeof IdentifierSchema> {
  return { identifierId: i._id, type: i.type, value: i.value, status: i.status, userId: i.userId };
}

function socialAccountMessage(a: SocialAccountRecord): MessageInitShape<typeof SocialAccountSchema> {
  return {
    socialAccountId: a._id,
    providerType: a.providerType,
    identifierValue: a.identifierValue,
    userId: a.userId,
    foreignId: a.foreignId,
    avatarUrl: a.avatarUrl,
    fullName: a.fullName,
  };
}

export function userServiceImpl(deps: UserDeps): ServiceImpl<typeof UserService> {
  // The request's logger carries its request ID, so a failed challenge cleanup can be traced.
  const withRequestLogger = (ctx: HandlerContext): UserDeps => ({ ...deps, logger: ctx.values.get(loggerKey)?.get() ?? deps.logger });
  return {
    async createUser(req, ctx) {
      const user = await createUser(deps, { projectId: projectOf(ctx), fullName: req.fullName, status: req.status, explicitWebauthnId: req.explicitWebauthnId });
      return create(CreateUserResponseSchema, { user: userMessage(user) });
    },
    async getUser(req, ctx) {
      const user = await getUser(deps, projectOf(ctx), req.userId);
      return create(GetUserResponseSchema, { user: userMessage(user) });
    },
    async updateUser(req, ctx) {
      const user = await updateUser(deps, { projectId: projectOf(ctx), userId: req.userId, fullName: req.fullName, status: req.status });
      return create(UpdateUserResponseSchema, { user: userMessage(user) });
    },
    async deleteUser(req, ctx) {
      await deleteUser(withRequestLogger(ctx), projectOf(ctx), req.userId);
      return create(DeleteUserResponseSchema, { result: {} });
    },
    async createIdentifier(req, ctx) {
      const identifier = await createIdentifier(deps, {
        projectId: projectOf(ctx),
        userId: req.userId,
        type: req.identifierType,
        value: req.identifierValue,
        status: req.status,
      });
      return create(CreateIdentifierResponseSchema, { identifier: identifierMessage(identifier) });
    },
    async updateIdentifier(req, ctx) {
      const identifier = await updateIdentifier(deps, { projectId: projectOf(ctx), userId: req.userId, identifierId: req.identifierId, status: req.status });
      return create(UpdateIdentifierResponseSchema, { identifier: identifierMessage(identifier) });
    },
    async deleteIdentifier(req, ctx) {
      await deleteIdentifier(deps, { projectId: projectOf(ctx), userId: req.userId, identifierId: req.identifierId });
      return create(DeleteIdentifierResponseSchema, { result: {} });
    },
    async listIdentifiers(req, ctx) {
      const list = await listIdentifiers(deps, { projectId: projectOf(ctx), filter: req.filter, sort: req.sort, page: req.page, pageSize: req.pageSize });
      return create(ListIdentifiersResponseSchema, { identifiers: list.items.map(identifierMessage), paging: list.paging });
    },
    async createSocialAccount(req, ctx) {
      const account = await createSocialAccount(deps, {
        projectId: projectOf(ctx),
        userId: req.userId,
        providerType: req.providerType,
        identifierValue: req.identifierValue,
        foreignId: req.foreignId,
        avatarUrl: req.avatarUrl,
        fullName: req.fullName,
      });
      return create(CreateSocialAccountResponseSchema, { socialAccount: socialAccountMessage(account) });
    },
    async listUserSocialAccounts(req, ctx) {
      const items = await listUserSocialAccounts(deps, { projectId: projectOf(ctx), userId: req.userId, filter: req.filter, sort: req.sort, page: req.page, pageSize: req.pageSize });
      return create(ListUserSocialAccountsResponseSchema, { socialAccounts: items.map(socialAccountMessage) });
    },
    async listSocialAccounts(req, ctx) {
      const list = await listSocialAccounts(deps, { projectId: projectOf(ctx), filter: req.filter, sort: req.sort, page: req.page, pageSize: req.pageSize });
      return create(ListSocialAccountsResponseSchema, { socialAccounts: list.items.map(socialAccountMessage), paging: list.paging });
    },
  };
}
