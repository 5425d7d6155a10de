/**
 * PUT /v2/projectConfig/cname: the project's custom frontend host name (e.g. "auth.example.com").
 *
 * The reference says the hosted service "generates a new SSL certificate" for it; it says nothing
 * about tokens. So here the host is validated, stored on the project (lower-case) and reported
 * (`project list`), and nothing else changes: session tokens keep `iss` = the project's
 * frontendApiUrl and the JWKS stays where it is, so no token issued before or after the change
 * stops verifying. Making the host answer (a DNS record to the frontend listener, a TLS
 * certificate for it at the operator's TLS front) is the operator's part; see docs/operations.md.
 */
import { invalidArgument, notFound } from '../../../../runtime/errors.js';
import type { ProjectRecord } from '../store/projects.js';
import type { ProjectDeps } from './projectDeps.js';

/** A DNS label: letters, digits and inner hyphens, 1 to 63 characters (RFC 1123). */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_HOST_LENGTH = 253;

export async function updateCname(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string, cname: string): Promise<ProjectRecord> {
  const host = checkCname(cname);
  const updated = await deps.projects.updateCname(projectId, host, deps.now());
  if (!updated) throw notFound('project_not_found', `project ${projectId} does not exist`);
  return updated;
}

/**
 * The host name in its stored form, or 400 validation_error naming `cname`: a fully qualified DNS
 * host name (at least two labels, one trailing dot allowed), no scheme, port, path, user info or
 * wildcard; the top-level label not all digits, so an IPv4 address is no host name either.
 */
export function checkCname(raw: string): string {
  const host = raw.toLowerCase().replace(/\.$/, '');
  const problem = cnameProblem(raw, host);
  if (problem) throw invalidArgument('validation_error', `cname ${problem}`, [{ field: 'cname', message: problem }]);
  return host;
}

function cnameProblem(raw: string, host: string): string | null {
  if (raw.trim() !== raw || raw === '') return 'must be a host name without spaces';
  if (/[/:@?#]/.test(raw)) return 'must be a bare host name such as "auth.example.com", without scheme, port or path';
  if (host.length > MAX_HOST_LENGTH) return `must be at most ${MAX_HOST_LENGTH} characters`;
  const labels = host.split('.');
  if (labels.length < 2) return 'must be a fully qualified host name such as "auth.example.com"';
  const bad = labels.find((label) => !LABEL.test(label));
  if (bad !== undefined) return `has an invalid label "${bad}": labels are 1-63 letters, digits or inner hyphens`;
  if (/^[0-9]+$/.test(labels[labels.length - 1])) return 'must be a host name, not an IP address';
  return null;
}
