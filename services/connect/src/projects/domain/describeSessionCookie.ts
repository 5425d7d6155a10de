/**
 * The cookie the web SDK keeps the session token in (cbo_session_token, set by the page's script),
 * as GET /v2/session-config describes it:
 *
 * - `domain` "" (host-only): only the page's own host gets the session token. web-core 3.x writes
 *   `domain=${domain}` into the cookie string, and browsers ignore an empty Domain attribute
 *   (RFC 6265 5.2.3), which makes the cookie host-only. Never absent: the SDK would write
 *   `domain=undefined` and the browser would drop the cookie. A project that opted into a shared
 *   cookie domain (`sessionCookieDomain`, see checkSharedCookieDomain.ts) gets that domain, as long
 *   as it still covers every origin.
 * - `secure` for every project with an https origin: only a project whose origins are all
 *   http://localhost (or another loopback address), i.e. local development, gets a cookie without
 *   Secure. (Chromium and Firefox accept Secure cookies from http://localhost too.)
 * - SameSite=Lax, path "/", and as long as a session token lives.
 */
import type { ProjectRecord } from '../store/projects.js';
import { sessionLifetimeOf } from './sessionLifetimes.js';
import { sharedCookieDomainProblem } from './checkSharedCookieDomain.js';

export interface SessionCookie {
  domain: string;
  secure: boolean;
  sameSite: 'lax';
  path: string;
  lifetimeSeconds: number;
}

/** http on a loopback host: the one kind of origin a browser treats as secure without TLS. */
function isLoopbackHttp(origin: string): boolean {
  const url = new URL(origin);
  if (url.protocol !== 'http:') return false;
  const host = url.hostname;
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.[0-9]+\.[0-9]+\.[0-9]+$/.test(host);
}

export function describeSessionCookie(project: Pick<ProjectRecord, 'rpId' | 'origins' | 'sessionLifetimeSeconds' | 'sessionCookieDomain'>): SessionCookie {
  const shared = project.sessionCookieDomain && sharedCookieDomainProblem(project, project.sessionCookieDomain) === null ? project.sessionCookieDomain : '';
  return {
    domain: shared,
    secure: !(project.origins.length > 0 && project.origins.every(isLoopbackHttp)),
    sameSite: 'lax',
    path: '/',
    lifetimeSeconds: sessionLifetimeOf(project),
  };
}
