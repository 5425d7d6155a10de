/**
 * Error and generic bodies in the reference API's shapes (errorRsp, genericRsp), and the mapping
 * from Connect codes to HTTP statuses (docs/api/errors.md, "Connect codes and HTTP statuses").
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { ErrorInfoSchema } from '../../gen/passkeyauth/common/v1/errors_pb.js';

export interface ErrorBody {
  type: string;
  details?: string;
  validation?: { field: string; message: string }[];
  links?: string[];
}

/** An error the gateway answers itself (before or instead of calling a service). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.details ?? body.type);
  }
}

const STATUS_BY_CODE: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 400,
  [Code.OutOfRange]: 400,
  [Code.Unauthenticated]: 401,
  [Code.PermissionDenied]: 403,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.FailedPrecondition]: 409,
  [Code.Aborted]: 409,
  [Code.ResourceExhausted]: 429,
  [Code.Unavailable]: 503,
  [Code.DeadlineExceeded]: 504,
  [Code.Unimplemented]: 501,
};

const MESSAGES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** Seconds a client should wait before retrying after an outage or a time-out. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * Turns a service's ConnectError into an HttpError, keeping only what the service made public.
 * Faults (a service unreachable, a connection dropped mid-call, a deadline passed) are 503/504
 * with Retry-After: the outcome of the call is unknown, so the client is told to retry, never
 * "conflict" or "internal error".
 */
export function fromConnectError(err: unknown): HttpError {
  const ce = ConnectError.from(err);
  const info = ce.findDetails(ErrorInfoSchema)[0];
  let status = STATUS_BY_CODE[ce.code] ?? 500;
  // A failed precondition on something that has run out ("…_expired") is 410 Gone rather than 409.
  if (ce.code === Code.FailedPrecondition && info?.type.endsWith('_expired')) status = 410;
  if (info) {
    // A rate limit says when to come back; HTTP says it with Retry-After. So does an outage the
    // service reported itself (its store or a service it needs is down).
    const retryAfter = info.retryAfterSeconds > 0 ? info.retryAfterSeconds : status === 503 ? RETRY_AFTER_SECONDS : 0;
    const headers: Record<string, string> = retryAfter > 0 ? { 'retry-after': String(retryAfter) } : {};
    return new HttpError(
      status,
      {
        type: info.type,
        details: info.details,
        validation: info.validation.map((v) => ({ field: v.field, message: v.message })),
        links: info.links,
      },
      headers,
    );
  }
  const retry = { 'retry-after': String(RETRY_AFTER_SECONDS) };
  // Aborted without a detail is the transport's: the connection was reset mid-call (the service
  // crashed or restarted), so whether the call took effect is unknown.
  if (ce.code === Code.Unavailable || ce.code === Code.Aborted || isConnectionFault(ce)) {
    return new HttpError(503, { type: 'service_unavailable', details: 'a backing service is not reachable or dropped the connection; the outcome is unknown, retry shortly' }, retry);
  }
  if (ce.code === Code.DeadlineExceeded) {
    return new HttpError(504, { type: 'service_unavailable', details: 'a backing service did not answer in time; the outcome is unknown, retry shortly' }, retry);
  }
  // No detail means the service did not mean this for the caller (a bug, or Connect's own
  // protocol errors): say nothing specific, whatever the upstream message was.
  return new HttpError(status, { type: status === 500 ? 'internal_error' : 'error', details: status === 500 ? 'internal error' : (MESSAGES[status] ?? 'error').toLowerCase() });
}

/**
 * A failure of the connection itself rather than an answer of the service: the client transport
 * keeps the socket's error as the cause (EPIPE while the request was written to a dying process,
 * ECONNRESET, a premature close), whatever Connect code it chose; a service's own error crosses the
 * wire without one.
 */
function isConnectionFault(ce: ConnectError): boolean {
  const code = (ce.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^(E[A-Z]+|ERR_STREAM_PREMATURE_CLOSE|ERR_HTTP2_[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(code);
}

export function errorRsp(status: number, body: ErrorBody, requestId: string, runtimeSeconds: number): Record<string, unknown> {
  return {
    httpStatusCode: status,
    message: MESSAGES[status] ?? 'Error',
    requestData: { requestID: requestId, link: '' },
    runtime: runtimeSeconds,
    error: {
      type: body.type,
      ...(body.details ? { details: body.details } : {}),
      validation: body.validation ?? [],
      links: body.links ?? [],
    },
  };
}

export function genericRsp(requestId: string, runtimeSeconds: number): Record<string, unknown> {
  return { httpStatusCode: 200, message: 'OK', requestData: { requestID: requestId, link: '' }, runtime: runtimeSeconds };
}
