/**
 * Ending a session as the backend API's `revoked`, each with its session.revoked event in connect's
 * outbox before the end is answered: revoked by the application (PATCH …/longSessions/{id}), by a
 * refresh-token reuse, or because its user was disabled (PATCH /v2/users/{userID}, or a use that
 * finds the user disabled). A logout (`logged_out`) and an idle end (`inactivity_reached`) are no
 * revocation and record none; nor do the sessions of a deleted user, whose user.deleted says it all.
 * One session ends once (the store's guard takes it from active only), so it has one event at most.
 */
import type { ChangeConfirmer } from '../../../../runtime/outbox.js';
import { eventClientOf, recordIfChanged } from '../../shared/domain/changeEvents.js';
import type { SessionRecord, SessionRevokeReason, SessionStore } from '../store/sessions.js';
import type { SessionDeps } from './sessionDeps.js';

export type RevokeReason = Extract<SessionRevokeReason, 'revoked_by_application' | 'refresh_token_reuse' | 'user_unavailable'>;

/** The event's `reason`: the stored reason, except that a user gone away here is one disabled (a deleted user's sessions record no event). */
const EVENT_REASONS: Record<RevokeReason, string> = { revoked_by_application: 'revoked_by_application', refresh_token_reuse: 'refresh_token_reuse', user_unavailable: 'user_disabled' };

type Deps = Pick<SessionDeps, 'sessions' | 'events' | 'now'>;

/**
 * Active → revoked with its event; false (and no event) if the session had already ended. `from` is
 * the end user's call that caused it (a reused refresh token), absent for the backend API's changes.
 */
export async function revokeSession(
  deps: Deps,
  session: Pick<SessionRecord, '_id' | 'projectId' | 'userId'>,
  reason: RevokeReason,
  from?: { clientAddress: string; userAgent: string },
): Promise<boolean> {
  const event = {
    projectId: session.projectId,
    type: 'session.revoked',
    data: { userID: session.userId, longSessionID: session._id, reason: EVENT_REASONS[reason] },
    ...(from ? { client: eventClientOf(from) } : {}),
  };
  return (await recordIfChanged(deps.events, event, () => deps.sessions.revokeSession(session.projectId, session._id, reason, deps.now()))) !== null;
}

/** Sessions ended per look-up while disabling a user. */
const BATCH = 100;

/**
 * users' UserSessionEnder: disabling a user ends each of their active sessions with its own event
 * (one guarded update each, so a session ended meanwhile by other means keeps that end). Answers how many ended here.
 */
export function userSessionEnder(deps: Deps) {
  return {
    async revokeUserSessions(projectId: string, userId: string, reason: 'user_unavailable'): Promise<number> {
      let ended = 0;
      for (;;) {
        const batch = await deps.sessions.listActiveUserSessions(projectId, userId, BATCH);
        for (const session of batch) if (await revokeSession(deps, session, reason)) ended++;
        // Each session of the batch is no longer active now, so the next look-up finds the rest.
        if (batch.length < BATCH) return ended;
      }
    },
  };
}

/**
 * Whether the session of a session.revoked entry left prepared ended as it says: revoked for that
 * reason. A session that ended otherwise meanwhile keeps that end, and that end's event, if any.
 */
export function confirmSessionEvent(sessions: Pick<SessionStore, 'findSession'>): ChangeConfirmer {
  return async (event) => {
    const id = typeof event.data.longSessionID === 'string' ? event.data.longSessionID : '';
    const session = id === '' ? null : await sessions.findSession(event.projectId, id);
    if (!session || session.status !== 'revoked' || session.userId !== event.data.userID) return false;
    const reason = session.revokeReason as RevokeReason | undefined;
    return reason !== undefined && EVENT_REASONS[reason] === event.data.reason;
  };
}
