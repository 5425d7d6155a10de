import { addOrigin } from '../../projects/domain/origins.js';
import { requiredOption } from './checkOptions.js';
import { defineProjectCommand } from './projectCommand.js';

export const addOriginCommand = defineProjectCommand({
  name: 'add-origin',
  usage: `  add-origin --project pro-… --origin URL
      allows one more origin; prints {projectID, origins}`,
  options: { project: { type: 'string' }, origin: { type: 'string' } },
  parse: (v) => ({ projectId: requiredOption(v, 'project'), origin: requiredOption(v, 'origin') }),
  async run(deps, { projectId, origin }) {
    const p = await addOrigin(deps, projectId, origin);
    return { projectID: p._id, origins: [...p.origins] };
  },
});
