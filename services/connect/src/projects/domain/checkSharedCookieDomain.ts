/**
 * Whether a project may share its session cookie across subdomains (`sessionCookieDomain`), and
 * why not. A cookie with a Domain attribute goes to that domain and every name under it, so a
 * session token (which authorizes /v2/me/*) would reach every subdomain's server and script. By
 * default the cookie is host-only; a project opts in only to a domain that:
 *
 * - is a DNS name of at least two labels, not an IP address (a single label such as `localhost`
 *   or `com` would be shared with every site under it; browsers refuse public suffixes such as
 *   `co.uk` themselves, which is checked here no further);
 * - is the project's RP ID or a name under it: never wider than the relying party, whose passkeys
 *   already cover exactly that domain;
 * - covers every allowed origin (each origin's host is the domain or a name under it): the web SDK
 *   writes the cookie from the page, and a browser drops a cookie whose Domain does not cover the
 *   page's host;
 * - and every allowed origin is https, so the shared cookie is always Secure (an http page under
 *   the domain could neither read it nor overwrite it).
 *
 * describeSessionCookie checks it again on every read: an origin added later that the domain does
 * not cover turns the cookie host-only again rather than break the SDK on that origin.
 */
import type { ProjectRecord } from '../store/projects.js';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Null when the project may use `domain` as its shared session cookie domain, else the reason. */
export function sharedCookieDomainProblem(project: Pick<ProjectRecord, 'rpId' | 'origins'>, domain: string): string | null {
  const labels = domain.split('.');
  if (domain.length > 253 || !labels.every((l) => LABEL.test(l))) return `must be a domain name such as "example.com", got "${domain}"`;
  if (labels.length < 2) return `must have at least two labels (a single label is shared with every site under it), got "${domain}"`;
  if (/^[0-9]+$/.test(labels.at(-1)!)) return `must be a domain name, not an IP address, got "${domain}"`;
  if (domain !== project.rpId && !domain.endsWith(`.${project.rpId}`)) return `must be the project's RP ID "${project.rpId}" or a name under it, got "${domain}"`;
  for (const origin of project.origins) {
    const url = new URL(origin);
    if (url.protocol !== 'https:') return `every origin must be https for a shared cookie (it is always Secure), got "${origin}"`;
    if (url.hostname !== domain && !url.hostname.endsWith(`.${domain}`)) return `must cover every origin, but "${origin}" is not under "${domain}"`;
  }
  if (project.origins.length === 0) return 'the project has no origins to share the cookie between';
  return null;
}
