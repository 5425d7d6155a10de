import { failedPrecondition } from '../../../runtime/errors.js';
import type { SessionRecord, SessionScope } from '../store/sessions.js';
import type { CeremonyDomainDeps } from './deps.js';

/**
 * Takes the ceremony session a finish answers, exactly once. One guarded findOneAndUpdate (pending → completed) matches the
 * challenge and every binding (project, operation, user, process) and an unexpired time, so of two
 * concurrent or replayed finishes only one gets the session. When none matched, a second atomic
 * delete tells an expired session (failed_precondition `challenge_expired`, 410 at the gateway)
 * from an unknown, used or differently bound one (`challenge_not_found_or_used`).
 */
export async function consumeSession(deps: Pick<CeremonyDomainDeps, 'sessions' | 'now'>, scope: SessionScope): Promise<SessionRecord> {
  const now = deps.now();
  const session = await deps.sessions.consume(scope, now);
  if (session) return session;
  if (await deps.sessions.discardExpired(scope, now)) {
    throw failedPrecondition('challenge_expired', `the ${scope.operation} ceremony has expired; start a new one`);
  }
  throw failedPrecondition(
    'challenge_not_found_or_used',
    `no open ${scope.operation} ceremony matches this response's challenge for this ${scope.userId !== undefined ? 'user and ' : ''}process; it was never started, already finished or belongs to another`,
  );
}
