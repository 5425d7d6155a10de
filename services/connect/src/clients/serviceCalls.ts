/**
 * How connect's adapters call another service: the call's identity goes out as headers
 * (serviceHeaders), and the other service's errors come back as DomainErrors (relayError).
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { ErrorInfoSchema } from '../../../../gen/passkeyauth/common/v1/errors_pb.js';
import { HEADERS } from '../../../runtime/context.js';
import { type ErrorKind, RelayedError } from '../../../runtime/errors.js';
import type { ServiceCall } from '../shared/domain/passkeyCeremonies.js';

/**
 * The headers that carry a call's identity on to another service: request ID, project and the end
 * user's address (so per-address limits downstream apply to the real client). The domain names
 * the caller (ServiceCall); turning it into headers is the adapter's business.
 */
export function serviceHeaders(call: ServiceCall): Record<string, string> {
  return {
    [HEADERS.requestId]: call.requestId,
    [HEADERS.projectId]: call.projectId,
    ...(call.clientAddress ? { [HEADERS.clientAddress]: call.clientAddress } : {}),
  };
}

/** The ErrorInfo kinds a refusal keeps; any other code becomes 'unavailable'. */
const KINDS: Partial<Record<Code, ErrorKind>> = {
  [Code.InvalidArgument]: 'invalid_argument',
  [Code.Unauthenticated]: 'unauthenticated',
  [Code.PermissionDenied]: 'permission_denied',
  [Code.NotFound]: 'not_found',
  [Code.AlreadyExists]: 'already_exists',
  [Code.FailedPrecondition]: 'failed_precondition',
  [Code.ResourceExhausted]: 'resource_exhausted',
};

/**
 * Turns another service's error into a DomainError for connect's domain (RelayedError: the error
 * interceptor answers with the original unchanged). A refusal keeps its kind and its ErrorInfo
 * (type, message, validation, retry-after); codes that are no refusal (an outage, a time-out, a
 * reset connection, an internal error) become 'unavailable': the outcome is unknown. Anything
 * that is not a ConnectError (a bug in this process) is left alone.
 */
export function relayError(err: unknown): unknown {
  if (!(err instanceof ConnectError)) return err;
  const info = err.findDetails(ErrorInfoSchema)[0];
  return new RelayedError(KINDS[err.code] ?? 'unavailable', info?.type || 'upstream_error', err.rawMessage, err, {
    validation: info?.validation.map((v) => ({ field: v.field, message: v.message })) ?? [],
    ...(info && info.retryAfterSeconds > 0 ? { retryAfterSeconds: info.retryAfterSeconds } : {}),
  });
}

/** Runs one call to another service; its errors leave as DomainErrors (see above). */
export async function relayErrorsOf<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw relayError(err);
  }
}
