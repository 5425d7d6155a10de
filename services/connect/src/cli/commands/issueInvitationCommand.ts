import { issueInvitation } from '../../connect-flows/domain/invitations.js';
import { requiredOption } from './checkOptions.js';
import { defineProjectCommand, UsageError } from './projectCommand.js';

export const issueInvitationCommand = defineProjectCommand({
  name: 'invite',
  usage: `  invite --project pro-… [--days N]
      issues an invitation token (default 30 days) for web SDK setInvitation(); prints {projectID, invitationToken, expiresAt}`,
  options: { project: { type: 'string' }, days: { type: 'string' } },
  parse(v) {
    const projectId = requiredOption(v, 'project');
    const days = v.days === undefined ? 30 : Number(v.days);
    if (!Number.isInteger(days) || days < 1 || days > 365) throw new UsageError('--days must be a whole number from 1 to 365');
    return { projectId, days };
  },
  async run(deps, { projectId, days }) {
    const r = await issueInvitation(deps, projectId, days);
    return { projectID: projectId, ...r };
  },
});
