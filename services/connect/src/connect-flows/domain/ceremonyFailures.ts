/**
 * What an error of the ceremony service means for a connect flow: a refusal caused by the client
 * (its input, its state), as opposed to an outage. (A passkey that no longer exists reaches the
 * flows as a value, `passkeyDeleted`, through the port.)
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

