/**
 * The cookie the web SDK keeps the session token in (cbo_session_token, set by the page's script),
 * as GET /v2/session-config describes it: for the project's relying party ID (the registrable
 * domain every allowed origin is under), Secure when every allowed origin is https (a page on
 * http://localhost could not set it otherwise), SameSite=Lax, and as long as a session token lives.
 */
import type { ProjectRecord } from '../../projects/store/projects.js';
import { sessionLifetimeOf } from './sessionLifetimes.js';

export interface SessionCookie {
  domain: string;
  secure: boolean;
  sameSite: 'lax';
  path: string;
  lifetimeSeconds: number;
}

export function describeSessionCookie(project: Pick<ProjectRecord, 'rpId' | 'origins' | 'sessionLifetimeSeconds'>): SessionCookie {
  return {
    domain: project.rpId,
    secure: project.origins.length > 0 && project.origins.every((o) => o.startsWith('https://')),
    sameSite: 'lax',
    path: '/',
    lifetimeSeconds: sessionLifetimeOf(project),
  };
}
