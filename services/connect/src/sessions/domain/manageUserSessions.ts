/**
 * The backend API's view of a user's sessions (the reference's long sessions): list them, read one,
 * and end one (status "revoked"). Everything is scoped by the calling project: another project's
 * session or user is a 404, exactly like an unknown one.
 */
import { notFound } from '../../../../runtime/errors.js';
import { getProject } from '../../projects/index.js';
import type { SessionRecord } from '../store/sessions.js';
import { describeLongSession, type LongSession } from './describeLongSession.js';
import { revokeSession } from './revokeSession.js';
import type { SessionDeps } from './sessionDeps.js';

type Deps = Pick<SessionDeps, 'projects' | 'sessions' | 'users' | 'identifiers' | 'events' | 'now'>;

export interface LongSessionPage {
  items: LongSession[];
  paging: { page: number; totalPages: number; totalItems: number };
}

const DEFAULT_PAGE_SIZE = 10;

export async function listUserSessions(deps: Deps, input: { projectId: string; userId: string; page?: number; pageSize?: number }): Promise<LongSessionPage> {
  const project = await getProject(deps, input.projectId);
  // Guard: the user exists in this project (another project's user is unknown here).
  if (!(await deps.users.find(project._id, input.userId))) throw notFound('user_not_found', `user ${input.userId} does not exist in project ${project._id}`);
  const page = input.page ?? 1;
  const pageSize = input.pageSize ?? DEFAULT_PAGE_SIZE;
  const { sessions, total } = await deps.sessions.listUserSessions(project._id, input.userId, page, pageSize);
  const identifiers = await deps.identifiers.listForUser(project._id, input.userId);
  const now = deps.now();
  return {
    items: sessions.map((s) => describeLongSession(s, project, identifiers, now)),
    paging: { page, totalPages: Math.ceil(total / pageSize), totalItems: total },
  };
}

/** One session; with userId, only that user's (GET /v2/users/{userID}/longSessions/{id}), else any of the project's. */
export async function getUserSession(deps: Deps, input: { projectId: string; sessionId: string; userId?: string }): Promise<LongSession> {
  const project = await getProject(deps, input.projectId);
  const session = await findOwnSession(deps, project._id, input.sessionId, input.userId);
  return describeLongSession(session, project, await deps.identifiers.listForUser(project._id, session.userId), deps.now());
}

/**
 * PATCH …/longSessions/{id} with status "revoked": ends the session at once. Its refresh token is
 * refused from now on (a refresh and /v2/me/* both require an active session) and /v2/me/* refuse
 * its session tokens; offline verifiers accept those until they expire (the session token lifetime).
 * Idempotent: a session that already ended keeps the status (and reason) it ended with. Ending an
 * active one records session.revoked (revokeSession.ts; no end-user client: empty metadata).
 */
export async function revokeUserSession(deps: Deps, input: { projectId: string; userId: string; sessionId: string }): Promise<LongSession> {
  const project = await getProject(deps, input.projectId);
  const session = await findOwnSession(deps, project._id, input.sessionId, input.userId);
  await revokeSession(deps, session, 'revoked_by_application');
  return getUserSession(deps, input);
}

/** The session, if it is in the project and (when named) the user's; else 404 session_not_found. */
export async function findOwnSession(deps: Deps, projectId: string, sessionId: string, userId: string | undefined): Promise<SessionRecord> {
  const session = await deps.sessions.findSession(projectId, sessionId);
  // Guard: in this project (the query is scoped by it) and, when a user is named, that user's.
  if (!session || (userId !== undefined && session.userId !== userId)) {
    throw notFound('session_not_found', `no session ${sessionId}${userId ? ` of user ${userId}` : ''} in project ${projectId}`);
  }
  return session;
}
