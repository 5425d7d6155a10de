/** ProjectConfigService RPCs (backend API /v2/projectConfig/*): proto ⇄ domain mapping only. */
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { ProjectConfigService, UpdateCnameResponseSchema } from '../../../../../gen/passkeyauth/connect/v1/project_config_service_pb.js';
import { projectOf } from '../../../../runtime/context.js';
import type { ProjectDeps } from '../domain/projectDeps.js';
import { updateCname } from '../domain/updateCname.js';

export function projectConfigServiceImpl(deps: ProjectDeps): ServiceImpl<typeof ProjectConfigService> {
  return {
    async updateCname(req, ctx) {
      await updateCname(deps, projectOf(ctx), req.cname);
      return create(UpdateCnameResponseSchema, { result: {} });
    },
  };
}
