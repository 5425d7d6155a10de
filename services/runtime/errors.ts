/**
 * Typed domain errors. Domain code throws these; one interceptor per service turns them into
 * ConnectErrors carrying an ErrorInfo detail, and the gateway turns those into HTTP statuses and
 * the reference errorRsp body. Messages are public; `cause` stays in the logs.
 */
export type ErrorKind =
  | 'invalid_argument'
  | 'unauthenticated'
  | 'permission_denied'
  | 'not_found'
  | 'already_exists'
  | 'failed_precondition'
  | 'resource_exhausted'
  | 'unavailable';

export interface FieldProblem {
  /** JSON path of the request field, e.g. "clientInformation.userAgent". */
  field: string;
  message: string;
}

export class DomainError extends Error {
  /** For rate limits: whole seconds until a retry can succeed (sent on as Retry-After). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly kind: ErrorKind,
    /** Machine-readable error.type of the errorRsp body, e.g. "identifier_already_exists". */
    readonly type: string,
    message: string,
    readonly validation: FieldProblem[] = [],
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

export const invalidArgument = (type: string, message: string, validation: FieldProblem[] = []) =>
  new DomainError('invalid_argument', type, message, validation);
export const notFound = (type: string, message: string) => new DomainError('not_found', type, message);
export const alreadyExists = (type: string, message: string) => new DomainError('already_exists', type, message);
export const failedPrecondition = (type: string, message: string) => new DomainError('failed_precondition', type, message);
export const unauthenticated = (type: string, message: string) => new DomainError('unauthenticated', type, message);
/** A limit was hit; the caller may try again after `retryAfterSeconds` (at least 1). */
export const resourceExhausted = (type: string, message: string, retryAfterSeconds: number) =>
  new DomainError('resource_exhausted', type, message, [], { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) });
export const permissionDenied = (type: string, message: string) => new DomainError('permission_denied', type, message);

/**
 * An error another service answered, carried through this service's domain as a DomainError, so
 * domain code decides on its kind without knowing the transport. `relayed` is that service's own
 * error: the error interceptor answers with it unchanged, so its code, type, message, validation
 * and links reach the caller exactly as the other service wrote them (as before the domain saw
 * a DomainError). Adapters (each service's clients/) create these.
 */
export class RelayedError extends DomainError {
  constructor(
    kind: ErrorKind,
    type: string,
    message: string,
    readonly relayed: unknown,
    options: { validation?: FieldProblem[]; retryAfterSeconds?: number } = {},
  ) {
    super(kind, type, message, options.validation ?? [], { cause: relayed, retryAfterSeconds: options.retryAfterSeconds });
  }
}
