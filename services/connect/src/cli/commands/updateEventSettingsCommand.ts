import { eventRetentionDaysOf, MAX_EVENT_RETENTION_DAYS, MIN_EVENT_RETENTION_DAYS } from '../../projects/domain/eventRetention.js';
import { updateEventSettings } from '../../projects/domain/updateProjectSettings.js';
import { daysOption, requiredOption } from './checkOptions.js';
import { defineProjectCommand } from './projectCommand.js';

export const updateEventSettingsCommand = defineProjectCommand({
  name: 'event-settings',
  usage: `  event-settings --project pro-… [--event-retention-days N (${MIN_EVENT_RETENTION_DAYS}–${MAX_EVENT_RETENTION_DAYS})]
      how long ceremony events (the audit trail) are kept before they expire (default 90 days;
      events recorded from then on use it); prints {projectID, eventRetentionDays}`,
  options: { project: { type: 'string' }, 'event-retention-days': { type: 'string' } },
  parse: (v) => ({
    projectId: requiredOption(v, 'project'),
    eventRetentionDays: daysOption(v, 'event-retention-days', MIN_EVENT_RETENTION_DAYS, MAX_EVENT_RETENTION_DAYS),
  }),
  async run(deps, { projectId, eventRetentionDays }) {
    // Without options it only shows the current setting.
    const p = await updateEventSettings(deps, projectId, { eventRetentionDays });
    return { projectID: p._id, eventRetentionDays: eventRetentionDaysOf(p) };
  },
});
