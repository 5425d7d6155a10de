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
 * - the identity claims (describeIdentityClaims.ts): `name`, `orig`, `email`/`email_verified`,
 *   `phone_number`/`phone_number_verified` from proven identifiers only, and `identifiers`, every
 *   login identifier as `{type, value, status}`: the claims of the hosted service's session tokens,
 *   which the web SDK's `user` (SessionUser) reports to the page.
 *
 * It never outlives its session: `exp` is the project's session lifetime from now, or the
 * session's end if that comes first.
 */
import { unauthenticated } from '../../../../runtime/errors.js';
import { openProjectSigner, sessionLifetimeOf, type ProjectRecord, type ProjectSigner } from '../../projects/index.js';
import type { SessionRecord } from '../store/sessions.js';
import type { IdentifierRecord, UserRecord } from '../../users/index.js';
import type { SessionDeps } from './sessionDeps.js';
import { describeIdentityClaims } from './describeIdentityClaims.js';
import { authenticatedAtOf } from './requireRecentAuthentication.js';

export interface SignedSessionToken {
  sessionToken: string;
  /** The token's `exp`, in seconds since the epoch. */
  expiresAt: number;
}

export async function signSessionToken(
  deps: Pick<SessionDeps, 'masterKey' | 'now' | 'identifiers'>,
  project: ProjectRecord,
  session: Pick<SessionRecord, '_id' | 'expiresAt' | 'authenticatedAt' | 'createdAt'>,
  user: Pick<UserRecord, '_id' | 'fullName'>,
  /**
   * `name`: the name a connect login chose; used only if it is the full name or a proven identifier's value.
   * `identifiers`, `signer`: the user's identifiers and a signer of `project` the caller has already
   * (read once per request); without them they are read and the key is opened here.
   */
  options: { name?: string; identifiers?: readonly IdentifierRecord[]; signer?: ProjectSigner } = {},
): Promise<SignedSessionToken> {
  const identity = describeIdentityClaims(options.identifiers ?? (await deps.identifiers.listForUser(project._id, user._id)), user.fullName, options.name);
  const nowSeconds = Math.floor(deps.now().getTime() / 1000);
  const remaining = Math.floor(session.expiresAt.getTime() / 1000) - nowSeconds;
  // Guard: a session in its last second cannot carry a token at all; it has ended.
  if (remaining < 1) throw unauthenticated('session_ended', `session ${session._id} ended at ${session.expiresAt.toISOString()}`);
  const lifetime = Math.min(sessionLifetimeOf(project), remaining);
  const claims = {
    kind: 'session',
    sub: user._id,
    sid: session._id,
    auth_time: Math.floor(authenticatedAtOf(session).getTime() / 1000),
    ...identity,
  };
  const sessionToken = await (options.signer ?? openProjectSigner(deps, project)).sign(claims, { expiresIn: lifetime });
  return { sessionToken, expiresAt: nowSeconds + lifetime };
}
