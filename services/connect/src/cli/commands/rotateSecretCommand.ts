import { rotateSecret } from '../../projects/domain/rotateSecret.js';
import { requiredOption } from './checkOptions.js';
import { defineProjectCommand } from './projectCommand.js';

export const rotateSecretCommand = defineProjectCommand({
  name: 'rotate-secret',
  usage: `  rotate-secret --project pro-… [--revoke-others]
      adds a fresh API secret (others stay valid unless --revoke-others); prints {projectID, apiSecret}`,
  options: { project: { type: 'string' }, 'revoke-others': { type: 'boolean' } },
  parse: (v) => ({ projectId: requiredOption(v, 'project'), revokeOthers: v['revoke-others'] === true }),
  async run(deps, { projectId, revokeOthers }) {
    const r = await rotateSecret(deps, projectId, { revokeOthers });
    return { projectID: r.projectId, apiSecret: r.apiSecret };
  },
});
