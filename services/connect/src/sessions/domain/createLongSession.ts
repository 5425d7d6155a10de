/**
 * POST /v2/users/{userID}/longSessions (reference LongSessionCreate): the application starts a
 * session for a user it authenticated itself (its own password, code or social login). The
 * application vouches for that authentication, so the session records it as the authentication
 * time (`authenticatedAt` = now, `vouchedBy` "application"): its session tokens carry that moment
 * as `auth_time`, and the sensitive /v2/me/* actions accept them within the re-authentication
 * window, as after a sign-in here.
 *
 * No refresh token exists for such a session (the reference's answer carries none): the
 * application renews it with short sessions (issueShortSession.ts). It lasts what a renewable
 * session lasts (renewableSessionLifetimeOf), and the project's "keep" limits apply to it too.
 */
import { failedPrecondition, invalidArgument, notFound } from '../../../../runtime/errors.js';
import { newId } from '../../../../runtime/ids.js';
import { getProject } from '../../projects/index.js';
import { normalizeIdentifier, type IdentifierRecord } from '../../users/index.js';
import type { SessionRecord } from '../store/sessions.js';
import { describeLongSession, type LongSession } from './describeLongSession.js';
import type { SessionDeps } from './sessionDeps.js';
import { renewableSessionLifetimeOf } from './startSession.js';

export interface CreateLongSessionInput {
  projectId: string;
  userId: string;
  /** The reference's appType (empty, web, native), checked by the request's rules; recorded. */
  appType: string;
  /** The login identifier the application authenticated the user by, as typed (normalized here). */
  identifierValue: string;
}

export async function createLongSession(deps: Pick<SessionDeps, 'projects' | 'sessions' | 'users' | 'identifiers' | 'now'>, input: CreateLongSessionInput): Promise<LongSession> {
  const project = await getProject(deps, input.projectId);
  const user = await deps.users.find(project._id, input.userId);
  // Guard: the user exists in this project (another project's user is unknown here).
  if (!user) throw notFound('user_not_found', `user ${input.userId} does not exist in project ${project._id}`);
  // Guard: a disabled user gets no session, whoever vouches for them.
  if (user.status === 'disabled') throw failedPrecondition('user_disabled', `user ${user._id} is disabled; enable them (PATCH /v2/users/{userID}) to start a session`);
  const identifiers = await deps.identifiers.listForUser(project._id, user._id);
  const identifier = identifiers.find((i) => sameIdentifier(i, input.identifierValue));
  // Guard: the session names an identifier the user has (the value is personal data: not echoed).
  if (!identifier) {
    throw invalidArgument('validation_error', `identifierValue is not a login identifier of user ${user._id}`, [{ field: 'identifierValue', message: "must be one of the user's login identifiers" }]);
  }
  const now = deps.now();
  const session: SessionRecord = {
    _id: newId('ses'),
    projectId: project._id,
    userId: user._id,
    status: 'active',
    createdAt: now,
    authenticatedAt: now,
    vouchedBy: 'application',
    identifierValue: identifier.value,
    appType: input.appType,
    lastUsedAt: now,
    expiresAt: new Date(now.getTime() + renewableSessionLifetimeOf(project) * 1000),
  };
  await deps.sessions.insertSession(session);
  return describeLongSession(session, project, identifiers, now);
}

/** Whether `value`, normalized by the identifier's type, is that identifier (a value invalid for the type is not). */
function sameIdentifier(identifier: IdentifierRecord, value: string): boolean {
  try {
    return normalizeIdentifier(identifier.type, value) === identifier.value;
  } catch {
    return false;
  }
}
