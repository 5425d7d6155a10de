/**
 * A session as the backend API shows it (the reference's longSession). Its status says why it no
 * longer works, if it does not:
 * - `active`: refreshing works (and /v2/me/* accept its tokens);
 * - `logged_out`: the user logged out;
 * - `expired`: past its absolute end (the refresh lifetime, or under "keep" the maximum lifetime);
 * - `inactivity_reached`: under "keep", unused longer than the idle timeout;
 * - `revoked`: ended by the application (backend API), by a refresh-token reuse, or because its
 *   user was deleted or disabled.
 * Expiry and inactivity are read from the times as well as from the record, since a session that
 * nobody used again was never marked.
 */
import { sessionUseLimits, type ProjectRecord } from '../../projects/index.js';
import type { IdentifierRecord } from '../../users/index.js';
import type { SessionRecord } from '../store/sessions.js';

export type LongSessionStatus = 'active' | 'logged_out' | 'expired' | 'inactivity_reached' | 'revoked';

export interface LongSession {
  longSessionId: string;
  userId: string;
  identifierValue: string;
  status: LongSessionStatus;
  /** RFC 3339, UTC. */
  expires: string;
}

export function longSessionStatusOf(session: SessionRecord, project: ProjectRecord, now: Date): LongSessionStatus {
  if (session.status === 'revoked') {
    if (session.revokeReason === 'logout') return 'logged_out';
    if (session.revokeReason === 'inactivity') return 'inactivity_reached';
    return 'revoked';
  }
  const limits = sessionUseLimits(project, now);
  if (session.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (limits.createdAfter && session.createdAt.getTime() <= limits.createdAfter.getTime()) return 'expired';
  if (limits.usedAfter && session.lastUsedAt.getTime() <= limits.usedAfter.getTime()) return 'inactivity_reached';
  return 'active';
}

/**
 * The reference's identifierValue of a session started by a sign-in: the user's primary identifier,
 * else their oldest one (a session the application created shows the identifier it named).
 */
export function sessionIdentifierValue(identifiers: readonly IdentifierRecord[]): string {
  return (identifiers.find((i) => i.status === 'primary') ?? identifiers[0])?.value ?? '';
}

export function describeLongSession(session: SessionRecord, project: ProjectRecord, identifiers: readonly IdentifierRecord[], now: Date): LongSession {
  return {
    longSessionId: session._id,
    userId: session.userId,
    identifierValue: session.identifierValue ?? sessionIdentifierValue(identifiers),
    status: longSessionStatusOf(session, project, now),
    expires: session.expiresAt.toISOString(),
  };
}
