import { createProject, type CreateProjectInput } from '../../projects/domain/createProject.js';
import { MAX_EVENT_RETENTION_DAYS, MIN_EVENT_RETENTION_DAYS } from '../../projects/domain/eventRetention.js';
import { projectCredentials } from '../projectCredentials.js';
import { cloneDetectionOption, daysOption, requiredOption, selfServiceOption } from './checkOptions.js';
import { defineProjectCommand, UsageError } from './projectCommand.js';

export const createProjectCommand = defineProjectCommand({
  name: 'create',
  usage: `  create --name NAME --rp-id RPID --origin URL [--origin URL …] [--rp-name NAME] [--app-name NAME]
         [--environment development|production] [--user-verification required|preferred|discouraged]
         [--challenge-delivery app|service] [--max-challenge-attempts N] [--email-link-url URL]
         [--event-retention-days N (${MIN_EVENT_RETENTION_DAYS}–${MAX_EVENT_RETENTION_DAYS})] [--clone-detection block|record]
         [--self-service enabled|disabled]
      creates a project (self-service sign-up/login off unless --self-service enabled, see
      self-service-settings); prints {projectID, apiSecret, clientKey, frontendApiUrl, backendApiUrl, rpID, origins}
      (the API secret is shown only here)`,
  options: {
    name: { type: 'string' },
    'rp-id': { type: 'string' },
    origin: { type: 'string', multiple: true },
    'rp-name': { type: 'string' },
    'app-name': { type: 'string' },
    environment: { type: 'string' },
    'user-verification': { type: 'string' },
    'challenge-delivery': { type: 'string' },
    'max-challenge-attempts': { type: 'string' },
    'email-link-url': { type: 'string' },
    'event-retention-days': { type: 'string' },
    'clone-detection': { type: 'string' },
    'self-service': { type: 'string' },
  },
  parse(v): CreateProjectInput {
    const attempts = v['max-challenge-attempts'];
    if (attempts !== undefined && !/^[0-9]{1,3}$/.test(attempts)) throw new UsageError('--max-challenge-attempts must be a whole number');
    const input: CreateProjectInput = {
      name: requiredOption(v, 'name'),
      rpId: requiredOption(v, 'rp-id'),
      origins: v.origin ?? [],
      rpName: v['rp-name'],
      appName: v['app-name'],
      environment: v.environment,
      userVerification: v['user-verification'],
      challengeDelivery: v['challenge-delivery'],
      maxChallengeAttempts: attempts === undefined ? undefined : Number(attempts),
      emailLinkUrl: v['email-link-url'],
      eventRetentionDays: daysOption(v, 'event-retention-days', MIN_EVENT_RETENTION_DAYS, MAX_EVENT_RETENTION_DAYS),
      cloneDetection: cloneDetectionOption(v),
      selfServiceFlows: selfServiceOption(v),
    };
    if (input.origins.length === 0) throw new UsageError('--origin is required (repeat it for several origins)');
    return input;
  },
  async run(deps, input) {
    const created = await createProject(deps, input);
    return projectCredentials(created.project, created.apiSecret, created.clientKey);
  },
});
