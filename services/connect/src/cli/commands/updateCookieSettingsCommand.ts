import { describeSessionCookie } from '../../projects/domain/describeSessionCookie.js';
import { updateCookieSettings } from '../../projects/domain/updateCookieSettings.js';
import { requiredOption } from './checkOptions.js';
import { defineProjectCommand, UsageError } from './projectCommand.js';

export const updateCookieSettingsCommand = defineProjectCommand({
  name: 'cookie-settings',
  usage: `  cookie-settings --project pro-… [--shared-domain DOMAIN | --host-only]
      the session cookie the web SDK sets (GET /v2/session-config): host-only by default; with
      --shared-domain it is shared with every name under DOMAIN, which must be the RP ID or a name
      under it, cover every origin, and every origin must be https; prints {projectID,
      sessionCookieDomain (null: host-only), secure}`,
  options: { project: { type: 'string' }, 'shared-domain': { type: 'string' }, 'host-only': { type: 'boolean' } },
  parse(v) {
    const projectId = requiredOption(v, 'project');
    const domain = v['shared-domain'];
    if (domain !== undefined && v['host-only'] === true) throw new UsageError('--shared-domain and --host-only exclude each other');
    if (domain === '') throw new UsageError('--shared-domain needs a domain; use --host-only to remove it');
    return { projectId, sharedDomain: v['host-only'] === true ? null : domain };
  },
  async run(deps, { projectId, sharedDomain }) {
    // Without options it only shows the current setting.
    const p = await updateCookieSettings(deps, projectId, { sharedDomain });
    const cookie = describeSessionCookie(p);
    return { projectID: p._id, sessionCookieDomain: cookie.domain || null, secure: cookie.secure };
  },
});
