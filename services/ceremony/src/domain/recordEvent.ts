import { DomainError } from '../../../runtime/errors.js';
import type { CeremonyOperation } from '../store/sessions.js';
import type { CeremonyDomainDeps } from './deps.js';
import type { CeremonyEvent, CeremonyEventType } from './insights/types.js';

/** The events that end a ceremony, as ceremony_outcomes_total labels; clone-detected names its operation separately. */
const OUTCOMES: Partial<Record<CeremonyEventType, { operation: CeremonyOperation; outcome: 'success' | 'failure' }>> = {
  'append-succeeded': { operation: 'append', outcome: 'success' },
  'append-failed': { operation: 'append', outcome: 'failure' },
  'login-succeeded': { operation: 'login', outcome: 'success' },
  'login-failed': { operation: 'login', outcome: 'failure' },
  'mediation-succeeded': { operation: 'mediation', outcome: 'success' },
  'mediation-failed': { operation: 'mediation', outcome: 'failure' },
};

/**
 * Records a ceremony event without letting a failure to record change the ceremony's outcome: the
 * credential store has already decided it (a stored passkey stays stored, a refused login stays
 * refused with its own error). A lost event is logged as an error instead. Events that end a
 * ceremony are counted in deps.outcomes first, so a lost event is still counted; `operation` names
 * the ceremony a clone-detected event ends (a failed login or mediation).
 */
export async function recordEvent(
  deps: Pick<CeremonyDomainDeps, 'insights' | 'logger' | 'outcomes'>,
  event: CeremonyEvent,
  operation?: CeremonyOperation,
): Promise<void> {
  countOutcome(deps, event, operation);
  try {
    await deps.insights.recordEvent(event);
  } catch (err) {
    deps.logger.error({ err, eventType: event.type, projectId: event.projectId }, 'ceremony event could not be recorded');
  }
}

function countOutcome(deps: Pick<CeremonyDomainDeps, 'outcomes'>, event: CeremonyEvent, operation?: CeremonyOperation): void {
  if (!deps.outcomes) return;
  const known = OUTCOMES[event.type] ?? (event.type === 'clone-detected' && operation ? { operation, outcome: 'failure' as const } : undefined);
  if (!known) return;
  deps.outcomes.inc({ ...known, reason: known.outcome === 'failure' ? (event.reason ?? 'unknown') : '' });
}

/** The machine-readable reason of a failed ceremony for its event: the DomainError's type. */
export function failureReason(err: unknown): string {
  return err instanceof DomainError ? err.type : 'internal_error';
}
