/**
 * SessionService RPCs (frontend /v2/me/refresh and /v2/me/logout; backend /v2/users/{userID}/longSessions…
 * (list, create, get, revoke, short sessions) and /v2/longSessions/{id}): proto ⇄ domain mapping only.
 */
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  CreateShortSessionResponseSchema,
  CreateUserSessionResponseSchema,
  GetSessionResponseSchema,
  GetUserSessionResponseSchema,
  ListUserSessionsResponseSchema,
  LogoutResponseSchema,
  RefreshResponseSchema,
  SessionService,
  UpdateUserSessionResponseSchema,
} from '../../../../../gen/passkeyauth/connect/v1/session_service_pb.js';
import { clientAddressKey, projectOf, refreshTokenKey, tokenKindKey, tokenSessionIdKey, userAgentKey } from '../../../../runtime/context.js';
import { unauthenticated } from '../../../../runtime/errors.js';
import { createLongSession } from '../domain/createLongSession.js';
import { endSession } from '../domain/endSession.js';
import { issueShortSession } from '../domain/issueShortSession.js';
import { getUserSession, listUserSessions, revokeUserSession } from '../domain/manageUserSessions.js';
import { refreshSession } from '../domain/refreshSession.js';
import type { SessionDeps } from '../domain/sessionDeps.js';

export function sessionServiceImpl(deps: SessionDeps): ServiceImpl<typeof SessionService> {
  return {
    async refresh(_req, ctx) {
      const refreshToken = ctx.values.get(refreshTokenKey);
      // The gateway passes a refresh token only for token kind "refresh"; without one there is nothing to trade in.
      if (ctx.values.get(tokenKindKey) !== 'refresh' || !refreshToken) throw unauthenticated('invalid_refresh_token', 'present a refresh token (Authorization: Bearer rt_…)');
      const r = await refreshSession(deps, { projectId: projectOf(ctx), refreshToken, client: { clientAddress: ctx.values.get(clientAddressKey), userAgent: ctx.values.get(userAgentKey) } });
      // Under both names: the reference's (web-core 2.x) and web-core 3.x's.
      return create(RefreshResponseSchema, { shortSession: r.sessionToken, longSession: r.refreshToken, sessionToken: r.sessionToken, refreshToken: r.refreshToken });
    },
    async logout(_req, ctx) {
      const projectId = projectOf(ctx);
      const kind = ctx.values.get(tokenKindKey);
      if (kind === 'session') {
        // A session token from before sessions had IDs names none: nothing to end.
        await endSession(deps, { projectId, sessionId: ctx.values.get(tokenSessionIdKey) || undefined });
      } else if (kind === 'refresh') {
        await endSession(deps, { projectId, refreshToken: ctx.values.get(refreshTokenKey) || undefined });
      } else {
        throw unauthenticated('invalid_token', 'log out with a session token or a refresh token');
      }
      return create(LogoutResponseSchema, {});
    },
    async listUserSessions(req, ctx) {
      const list = await listUserSessions(deps, { projectId: projectOf(ctx), userId: req.userId, page: req.page, pageSize: req.pageSize });
      return create(ListUserSessionsResponseSchema, { longSessions: list.items, paging: list.paging });
    },
    async getUserSession(req, ctx) {
      const longSession = await getUserSession(deps, { projectId: projectOf(ctx), userId: req.userId, sessionId: req.longSessionId });
      return create(GetUserSessionResponseSchema, { longSession });
    },
    async getSession(req, ctx) {
      const longSession = await getUserSession(deps, { projectId: projectOf(ctx), sessionId: req.longSessionId });
      return create(GetSessionResponseSchema, { longSession });
    },
    async updateUserSession(req, ctx) {
      // The validation rules allow only "revoked".
      const longSession = await revokeUserSession(deps, { projectId: projectOf(ctx), userId: req.userId, sessionId: req.longSessionId });
      return create(UpdateUserSessionResponseSchema, { longSession });
    },
    async createUserSession(req, ctx) {
      const longSession = await createLongSession(deps, { projectId: projectOf(ctx), userId: req.userId, appType: req.appType, identifierValue: req.identifierValue });
      return create(CreateUserSessionResponseSchema, { longSession });
    },
    async createShortSession(req, ctx) {
      const shortSession = await issueShortSession(deps, { projectId: projectOf(ctx), userId: req.userId, sessionId: req.longSessionId, issuer: req.issuer });
      return create(CreateShortSessionResponseSchema, shortSession);
    },
  };
}
