/**
 * The session token: an ES256 JWT of the project, verifiable offline against its JWKS (the
 * published Node SDK's validateToken does exactly that). Claims:
 *
 * - `iss` the project's frontend API URL, `aud` the project ID, `iat`, `exp` (set by signToken);
 * - `kind` "session";
 * - `sub` the user ID;
 * - `sid` the session ID (`ses-…`): /v2/me/* check that the session is still active, and logout names it;
 * - `auth_time` when the user last proved themselves for this session (sign-up, login or connect
 *   login completion), in seconds since the epoch (OpenID Connect's claim); refreshes keep it;
 * - `name` the user's full name, else their first identifier's value, else "";
 * - `identifiers` every login identifier of the user as `{type, value}` (email, phone, username);
 * - `email`, `phone_number` the user's first email address and phone number, when they have one, and
 *   `orig` their first identifier's value: the claims of the hosted service's session tokens, which
 *   the web SDK's `user` (SessionUser) reports to the page.
 *
 * It never outlives its session: `exp` is the project's session lifetime from now, or the
 * session's end if that comes first.
 */
import { unauthenticated } from '../../../../runtime/errors.js';
import type { ProjectRecord } from '../../projects/store/projects.js';
import type { SessionRecord } from '../store/sessions.js';
import type { UserRecord } from '../../users/store/users.js';
import { signToken } from '../../projects/domain/signToken.js';
import type { SessionDeps } from './sessionDeps.js';
import { sessionLifetimeOf } from './sessionLifetimes.js';
import { authenticatedAtOf } from './requireRecentAuthentication.js';

export interface SignedSessionToken {
  sessionToken: string;
  /** The token's `exp`, in seconds since the epoch. */
  expiresAt: number;
}

export async function signSessionToken(
  deps: Pick<SessionDeps, 'projects' | 'masterKey' | 'now' | 'identifiers'>,
  project: ProjectRecord,
  session: Pick<SessionRecord, '_id' | 'expiresAt' | 'authenticatedAt' | 'createdAt'>,
  user: Pick<UserRecord, '_id' | 'fullName'>,
  options: { name?: string } = {},
): Promise<SignedSessionToken> {
  const identifiers = (await deps.identifiers.listForUser(project._id, user._id)).map((i) => ({ type: i.type, value: i.value }));
  const name = options.name ?? (user.fullName || identifiers[0]?.value || '');
  const nowSeconds = Math.floor(deps.now().getTime() / 1000);
  const remaining = Math.floor(session.expiresAt.getTime() / 1000) - nowSeconds;
  // Guard: a session in its last second cannot carry a token at all; it has ended.
  if (remaining < 1) throw unauthenticated('session_ended', `session ${session._id} ended at ${session.expiresAt.toISOString()}`);
  const lifetime = Math.min(sessionLifetimeOf(project), remaining);
  const email = identifiers.find((i) => i.type === 'email')?.value;
  const phone = identifiers.find((i) => i.type === 'phone')?.value;
  const claims = {
    kind: 'session',
    sub: user._id,
    sid: session._id,
    auth_time: Math.floor(authenticatedAtOf(session).getTime() / 1000),
    name,
    identifiers,
    ...(email ? { email } : {}),
    ...(phone ? { phone_number: phone } : {}),
    orig: identifiers[0]?.value ?? '',
  };
  const sessionToken = await signToken(deps, project._id, claims, { expiresIn: lifetime });
  return { sessionToken, expiresAt: nowSeconds + lifetime };
}
