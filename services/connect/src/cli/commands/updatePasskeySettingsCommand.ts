import { cloneDetectionOf } from '../../projects/domain/cloneDetection.js';
import { updatePasskeySettings } from '../../projects/domain/updateProjectSettings.js';
import { cloneDetectionOption, requiredOption } from './checkOptions.js';
import { defineProjectCommand } from './projectCommand.js';

export const updatePasskeySettingsCommand = defineProjectCommand({
  name: 'passkey-settings',
  usage: `  passkey-settings --project pro-… [--clone-detection block|record]
      what a passkey whose signature counter went backwards (a possible clone) may do afterwards:
      block (default: it never logs in again) or record (only that login is refused); prints
      {projectID, cloneDetection}`,
  options: { project: { type: 'string' }, 'clone-detection': { type: 'string' } },
  parse: (v) => ({ projectId: requiredOption(v, 'project'), cloneDetection: cloneDetectionOption(v) }),
  async run(deps, { projectId, cloneDetection }) {
    // Without options it only shows the current setting.
    const p = await updatePasskeySettings(deps, projectId, { cloneDetection });
    return { projectID: p._id, cloneDetection: cloneDetectionOf(p) };
  },
});
