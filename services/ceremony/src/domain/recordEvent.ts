import { DomainError } from '../../../runtime/errors.js';
import type { CeremonyDomainDeps } from './deps.js';
import type { CeremonyEvent } from './insights/types.js';

/**
 * Records a ceremony event without letting a failure to record change the ceremony's outcome: the
 * credential store has already decided it (a stored passkey stays stored, a refused login stays
 * refused with its own error). A lost event is logged as an error instead.
 */
export async function recordEvent(deps: Pick<CeremonyDomainDeps, 'insights' | 'logger'>, event: CeremonyEvent): Promise<void> {
  try {
    await deps.insights.recordEvent(event);
  } catch (err) {
    deps.logger.error({ err, eventType: event.type, projectId: event.projectId }, 'ceremony event could not be recorded');
  }
}

/** The machine-readable reason of a failed ceremony for its event: the DomainError's type. */
export function failureReason(err: unknown): string {
  return err instanceof DomainError ? err.type : 'internal_error';
}
