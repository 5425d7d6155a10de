import { selfServiceFlowsOf } from '../../projects/domain/selfServiceFlows.js';
import { updateSelfServiceFlows } from '../../projects/domain/updateProjectSettings.js';
import { requiredOption, selfServiceOption } from './checkOptions.js';
import { defineProjectCommand } from './projectCommand.js';

export const updateSelfServiceSettingsCommand = defineProjectCommand({
  name: 'self-service-settings',
  usage: `  self-service-settings --project pro-… [--self-service enabled|disabled]
      whether the project serves the self-service sign-up and login flows (/v2/auth/*, e.g. the
      @corbado/web-js auth UI): enabled, or disabled (the default, also for projects created before
      this setting existed), where every /v2/auth/* call gets 403 self_service_disabled. Keep it
      disabled for a project whose users sign in through the connect flows: self-service sign-up
      takes any email address unproven; prints {projectID, selfServiceFlows}`,
  options: { project: { type: 'string' }, 'self-service': { type: 'string' } },
  parse: (v) => ({ projectId: requiredOption(v, 'project'), selfServiceFlows: selfServiceOption(v) }),
  async run(deps, { projectId, selfServiceFlows }) {
    // Without options it only shows the current setting.
    const p = await updateSelfServiceFlows(deps, projectId, selfServiceFlows);
    return { projectID: p._id, selfServiceFlows: selfServiceFlowsOf(p) };
  },
});
