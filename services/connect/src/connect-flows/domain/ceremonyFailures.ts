/**
 * Which ceremony failures are the client's (its response was wrong, late or for something that is
 * gone: nothing was stored), as opposed to outages where the outcome is unknown. The ceremony
 * port reports both as DomainErrors (domain/passkeyCeremonies.ts); their kind tells them apart.
 */
import { DomainError, type ErrorKind } from '../../../../runtime/errors.js';

const CLIENT_KINDS = new Set<ErrorKind>(['invalid_argument', 'failed_precondition', 'not_found', 'already_exists', 'permission_denied', 'unauthenticated']);

export function isClientFailure(err: unknown): boolean {
  return err instanceof DomainError && CLIENT_KINDS.has(err.kind);
}
