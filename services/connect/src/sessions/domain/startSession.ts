/**
 * Starts a session for a user who just signed in: the session record, a session token (see
 * signSessionToken.ts for its claims) and, if asked, a refresh token.
 *
 * The session records when the user proved themselves (now: every caller has just authenticated
 * them); that is the session token's `auth_time`, which refreshes never move.
 *
 * With a refresh token the session lasts the project's refresh lifetime from now (refreshing never
 * extends it), under refresh rotation "keep" at most its maximum lifetime (projects/domain/sessionLifetimes.ts). Without one (connect login F9: the application takes over from there) nothing can
 * renew it, so the session ends with its only token.
 */
import { newId } from '../../../../runtime/ids.js';
import { failedPrecondition } from '../../../../runtime/errors.js';
import type { SessionRecord } from '../store/sessions.js';
import type { IdentifierRecord, UserRecord } from '../../users/index.js';
import { getProject, keepMaxLifetimeOf, refreshLifetimeOf, refreshRotationOf, sessionLifetimeOf, type ProjectRecord, type ProjectSigner } from '../../projects/index.js';
import { generateRefreshToken, hashRefreshToken } from './refreshTokens.js';
import type { SessionDeps } from './sessionDeps.js';
import { signSessionToken } from './signSessionToken.js';

export interface StartSessionInput {
  projectId: string;
  userId: string;
  withRefreshToken: boolean;
  /** The `name` a connect login chose; honoured only when it is the full name or a proven identifier (see describeIdentityClaims.ts). */
  name?: string;
  /**
   * What the caller read in this request already (the connect login, F9): the project (as its
   * signer), the user and the user's identifiers are then not read again, and the key that signs
   * the session token is the one the caller's signer opened.
   */
  known?: KnownSessionFacts;
}

export interface KnownSessionFacts {
  signer: ProjectSigner;
  user: UserRecord;
  identifiers: readonly IdentifierRecord[];
}

export interface StartedSession {
  sessionId: string;
  sessionToken: string;
  /** Only with withRefreshToken; shown once, only its hash is stored. */
  refreshToken?: string;
  /** The session token's `exp`, in seconds since the epoch. */
  expiresAt: number;
}

export async function startSession(deps: Omit<SessionDeps, 'events'>, input: StartSessionInput): Promise<StartedSession> {
  const { known } = input;
  if (known && (known.signer.project._id !== input.projectId || known.user._id !== input.userId)) throw new Error('startSession: the known facts are of another project or user');
  const project = known?.signer.project ?? (await getProject(deps, input.projectId));
  const user = known ? known.user : await deps.users.find(project._id, input.userId);
  // Guard: callers start sessions right after authenticating the user, so a missing one was deleted in between.
  if (!user) throw failedPrecondition('user_not_found', `user ${input.userId} does not exist in project ${project._id}`);
  const now = deps.now();
  const lifetime = input.withRefreshToken ? renewableSessionLifetimeOf(project) : sessionLifetimeOf(project);
  const session: SessionRecord = {
    _id: newId('ses'),
    projectId: project._id,
    userId: user._id,
    status: 'active',
    createdAt: now,
    authenticatedAt: now,
    lastUsedAt: now,
    expiresAt: new Date(now.getTime() + lifetime * 1000),
  };
  await deps.sessions.insertSession(session);

  let refreshToken: string | undefined;
  if (input.withRefreshToken) {
    refreshToken = generateRefreshToken();
    await deps.sessions.insertRefreshToken({
      _id: hashRefreshToken(refreshToken),
      projectId: project._id,
      sessionId: session._id,
      status: 'active',
      createdAt: now,
      expiresAt: session.expiresAt,
    });
  }
  const signed = await signSessionToken(deps, project, session, user, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(known ? { identifiers: known.identifiers, signer: known.signer } : {}),
  });
  return { sessionId: session._id, sessionToken: signed.sessionToken, ...(refreshToken ? { refreshToken } : {}), expiresAt: signed.expiresAt };
}

/**
 * Seconds a session that can be renewed lasts (by its refresh token, or by the application through
 * the backend API's short sessions): the refresh lifetime, under rotation "keep" at most the maximum lifetime.
 */
export function renewableSessionLifetimeOf(project: ProjectRecord): number {
  const kept = refreshRotationOf(project) === 'keep';
  return Math.min(refreshLifetimeOf(project), kept ? keepMaxLifetimeOf(project) : Infinity);
}
