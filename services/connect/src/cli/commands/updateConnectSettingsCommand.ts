import { parseConnectFlags, updateConnectSettings } from '../../projects/domain/updateConnectSettings.js';
import { requiredOption } from './checkOptions.js';
import { defineProjectCommand, UsageError } from './projectCommand.js';

export const updateConnectSettingsCommand = defineProjectCommand({
  name: 'connect-settings',
  usage: `  connect-settings --project pro-… [--rollout everyone|invited|nobody] [--flag KEY=VALUE …] [--clear-flags]
      who may use the connect flows (default everyone; invited = only clients with an invitation)
      and the flags every connect init answer carries; prints {projectID, connectRollout, connectFlags}`,
  options: { project: { type: 'string' }, rollout: { type: 'string' }, flag: { type: 'string', multiple: true }, 'clear-flags': { type: 'boolean' } },
  parse(v) {
    const projectId = requiredOption(v, 'project');
    const flagArgs = v.flag ?? [];
    const clear = v['clear-flags'] === true;
    if (clear && flagArgs.length) throw new UsageError('--clear-flags and --flag exclude each other');
    const flags = clear ? {} : flagArgs.length ? parseConnectFlags(flagArgs) : undefined;
    return { projectId, rollout: v.rollout, flags };
  },
  async run(deps, { projectId, rollout, flags }) {
    const p = await updateConnectSettings(deps, projectId, { rollout, flags });
    return { projectID: p._id, connectRollout: p.connectRollout ?? 'everyone', connectFlags: { ...(p.connectFlags ?? {}) } };
  },
});
