/**
 * Error and generic bodies in the reference API's shapes (errorRsp, genericRsp), and the mapping
 * from Connect codes to HTTP statuses (ARCHITECTURE.md, "Errors").
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
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** Turns a service's ConnectError into an HttpError, keeping only what the service made public. */
export function fromConnectError(err: unknown): HttpError {
  const ce = ConnectError.from(err);
  const info = ce.findDetails(ErrorInfoSchema)[0];
  let status = STATUS_BY_CODE[ce.code] ?? 500;
  // A failed precondition on something that has run out ("…_expired") is 410 Gone rather than 409.
  if (ce.code === Code.FailedPrecondition && info?.type.endsWith('_expired')) status = 410;
  if (info) {
    // A rate limit says when to come back; HTTP says it with Retry-After.
    const headers: Record<string, string> = info.retryAfterSeconds > 0 ? { 'retry-after': String(info.retryAfterSeconds) } : {};
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
  if (ce.code === Code.Unavailable || ce.code === Code.DeadlineExceeded) {
    return new HttpError(status, { type: 'service_unavailable', details: 'a backing service is not reachable; try again shortly' });
  }
  // No detail means the service did not mean this for the caller (a bug, an outage, or Connect's
  // own protocol errors): say nothing specific, whatever the upstream message was.
  return new HttpError(status, { type: status === 500 ? 'internal_error' : 'error', details: status === 500 ? 'internal error' : (MESSAGES[status] ?? 'error').toLowerCase() });
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
