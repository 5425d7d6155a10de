/**
 * Which ceremony failures are the client's (its response was wrong, late or for something that is
 * gone: nothing was stored), as opposed to outages where the outcome is unknown.
 */
import { Code, ConnectError } from '@connectrpc/connect';

const CLIENT_CODES = new Set([Code.InvalidArgument, Code.FailedPrecondition, Code.NotFound, Code.AlreadyExists, Code.PermissionDenied, Code.Unauthenticated]);

export function isClientFailure(err: unknown): boolean {
  return err instanceof ConnectError && CLIENT_CODES.has(err.code);
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ConnectError && err.code === Code.NotFound;
}
