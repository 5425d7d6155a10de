/**
 * Whether a ceremony failure says the thing is gone. The ceremony port reports its refusals as
 * DomainErrors (domain/passkeyCeremonies.ts); their kind tells them apart.
 */
import { DomainError } from '../../../../runtime/errors.js';

export function isNotFound(err: unknown): boolean {
  return err instanceof DomainError && err.kind === 'not_found';
}
