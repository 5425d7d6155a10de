/**
 * What an error of the ceremony service means for a connect flow: a refusal caused by the client
 * (its input, its state) or a passkey that no longer exists, as opposed to an outage.
 */
import { DomainError, type ErrorKind } from '../../../../runtime/errors.js';

/**
 * Which ceremony failures are the client's (its response was wrong, late or for something that is
 * gone: nothing was stored), as opposed to outages where the outcome is unknown. The ceremony
 * port reports both as DomainErrors (shared/domain/passkeyCeremonies.ts); their kind tells them apart.
 */
const CLIENT_KINDS = new Set<ErrorKind>(['invalid_argument', 'failed_precondition', 'not_found', 'already_exists', 'permission_denied', 'unauthenticated']);

export function isClientFailure(err: unknown): boolean {
  return err instanceof DomainError && CLIENT_KINDS.has(err.kind);
}

/**
 * Whether a ceremony failure says the thing is gone. The ceremony port reports its refusals as
 * DomainErrors (shared/domain/passkeyCeremonies.ts); their kind tells them apart.
 */
export function isNotFound(err: unknown): boolean {
  return err instanceof DomainError && err.kind === 'not_found';
}
