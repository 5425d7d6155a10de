/** ProjectService and ProjectConfigService RPCs: proto ⇄ domain mapping only. */
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  AuthenticateBackendResponseSchema,
  GetJwksResponseSchema,
  GetProjectPublicInfoResponseSchema,
  GetSessionConfigResponseSchema,
  IsOriginAllowedResponseSchema,
  ProjectService,
  SignPasskeyDataResponseSchema,
} from '../../../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { ProjectConfigService, UpdateCnameResponseSchema } from '../../../../../gen/passkeyauth/connect/v1/project_config_service_pb.js';
import { projectOf } from '../../../../runtime/context.js';
import { authenticateBackend } from '../domain/authenticateBackend.js';
import { getProject } from '../domain/getProject.js';
import { getProjectPublicInfo } from '../domain/getProjectPublicInfo.js';
import { listPublicJwks } from '../domain/signingKeys.js';
import { isOriginAllowed } from '../domain/origins.js';
import { signPasskeyData } from '../domain/signPasskeyData.js';
import { updateCname } from '../domain/updateCname.js';
import type { ProjectDeps } from '../domain/projectDeps.js';
import type { UserDeps } from '../../users/index.js';
import { describeSessionCookie } from '../domain/describeSessionCookie.js';

export function projectServiceImpl(deps: ProjectDeps & Pick<UserDeps, 'users' | 'identifiers'>): ServiceImpl<typeof ProjectService> {
  return {
    async authenticateBackend(req) {
      const projectId = await authenticateBackend(deps, req.projectId, req.apiSecret);
      return create(AuthenticateBackendResponseSchema, { projectId });
    },
    async getProjectPublicInfo(req) {
      const info = await getProjectPublicInfo(deps, req.projectId);
      return create(GetProjectPublicInfoResponseSchema, info);
    },
    async signPasskeyData(req, ctx) {
      // protovalidate has required passkeyData and bounded the lifetime to 1..300 seconds.
      const token = await signPasskeyData(deps, projectOf(ctx), req.passkeyData!, req.expiresInSeconds);
      return create(SignPasskeyDataResponseSchema, { signedPasskeyData: token });
    },
    async isOriginAllowed(req) {
      return create(IsOriginAllowedResponseSchema, { allowed: await isOriginAllowed(deps, req.origin) });
    },
    async getJwks(_req, ctx) {
      const project = await getProject(deps, projectOf(ctx));
      return create(GetJwksResponseSchema, { keys: listPublicJwks(project, deps.now()) });
    },
    async getSessionConfig(_req, ctx) {
      const project = await getProject(deps, projectOf(ctx));
      // Sessions are always issued and managed by this service. The cookie is under both names
      // (web-core 2.x reads shortSessionCookieConfig, 3.x only sessionTokenCookieConfig).
      const cookie = describeSessionCookie(project);
      return create(GetSessionConfigResponseSchema, {
        useSessionManagement: true,
        frontendApiUrl: project.frontendApiUrl,
        shortSessionCookieConfig: cookie,
        sessionTokenCookieConfig: cookie,
      });
    },
  };
}

/** The backend API's /v2/projectConfig/* (reference tag ProjectConfig). */
export function projectConfigServiceImpl(deps: ProjectDeps): ServiceImpl<typeof ProjectConfigService> {
  return {
    async updateCname(req, ctx) {
      await updateCname(deps, projectOf(ctx), req.cname);
      return create(UpdateCnameResponseSchema, { result: {} });
    },
  };
}
