/**
 * The interceptors every service runs, outermost first:
 *   1. context: request ID and authenticated project from headers into contextValues, a child logger;
 *   2. observe: one log line and one latency sample per RPC;
 *   3. errors: DomainError → ConnectError with an ErrorInfo detail (cause kept for logs only); a
 *      RelayedError → the other service's own error, unchanged;
 *   4. validate: protovalidate rules of the request message, as invalid_argument with field paths.
 */
import { create, type DescMessage, type Message } from '@bufbuild/protobuf';
import type { Path } from '@bufbuild/protobuf/reflect';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { createValidator } from '@bufbuild/protovalidate';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ErrorInfoSchema } from '../../gen/passkeyauth/common/v1/errors_pb.js';
import {
  clientAddressKey,
  HEADERS,
  loggerKey,
  projectIdKey,
  refreshTokenKey,
  requestIdKey,
  tokenKindKey,
  tokenProcessFamilyKey,
  tokenProcessIdKey,
  tokenSessionIdKey,
  tokenUserIdKey,
  userAgentKey,
} from './context.js';
import { DomainError, RelayedError, type ErrorKind, type FieldProblem } from './errors.js';
import { isStoreOutage } from './isStoreOutage.js';
import type { Metrics } from './metrics.js';
import { PROJECT_ID } from './wire.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
/** IDs carried in token subjects ("cpr-…", "usr-…"). */
const SUBJECT = /^[a-z]{3}-[0-9]{1,30}$/;

export function contextInterceptor(logger: Logger): Interceptor {
  return (next) => async (req) => {
    const given = req.header.get(HEADERS.requestId);
    const requestId = given && REQUEST_ID.test(given) ? given : `req-${randomUUID()}`;
    req.contextValues.set(requestIdKey, requestId);
    const header = req.header.get(HEADERS.projectId);
    const project = header && PROJECT_ID.test(header) ? header : undefined;
    if (project) req.contextValues.set(projectIdKey, project);
    const address = req.header.get(HEADERS.clientAddress);
    if (address && address.length <= 64) req.contextValues.set(clientAddressKey, address);
    const userAgent = req.header.get(HEADERS.userAgent);
    if (userAgent) req.contextValues.set(userAgentKey, userAgent.slice(0, 1024));
    const kind = req.header.get(HEADERS.tokenKind);
    if (kind === 'client' || kind === 'process' || kind === 'session' || kind === 'refresh') req.contextValues.set(tokenKindKey, kind);
    const processId = req.header.get(HEADERS.processId);
    if (processId && SUBJECT.test(processId)) req.contextValues.set(tokenProcessIdKey, processId);
    const processFamily = req.header.get(HEADERS.processFamily);
    if (processFamily === 'auth' || processFamily === 'connect') req.contextValues.set(tokenProcessFamilyKey, processFamily);
    const userId = req.header.get(HEADERS.userId);
    if (userId && SUBJECT.test(userId)) req.contextValues.set(tokenUserIdKey, userId);
    const sessionId = req.header.get(HEADERS.sessionId);
    if (sessionId && SUBJECT.test(sessionId)) req.contextValues.set(tokenSessionIdKey, sessionId);
    const refreshToken = req.header.get(HEADERS.refreshToken);
    if (refreshToken && refreshToken.length <= 64) req.contextValues.set(refreshTokenKey, refreshToken);
    let child: Logger | undefined;
    req.contextValues.set(loggerKey, {
      get: () => (child ??= logger.child({ requestId, rpc: req.method.name, ...(project ? { projectId: project } : {}) })),
      enabled: (level) => logger.isLevelEnabled(level),
    });
    return next(req);
  };
}

/**
 * One latency sample per RPC, and a log line: at debug for a success (the gateway's access line
 * already records every request, and a line per RPC cost more CPU than the RPC's own work), at
 * info or error for a failure, with its cause.
 */
export function observeInterceptor(metrics: Metrics): Interceptor {
  return (next) => async (req) => {
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
    const log = req.contextValues.get(loggerKey);
    let code = 'ok';
    try {
      const res = await next(req);
      if (log?.enabled('debug')) log.get().debug({ code, ms: Math.round(elapsed() * 1000) }, 'rpc');
      return res;
    } catch (err) {
      const ce = ConnectError.from(err);
      code = Code[ce.code].toLowerCase();
      // The public message goes to the client; the cause (internal) only here.
      const level = ce.code === Code.Internal || ce.code === Code.Unknown ? 'error' : 'info';
      log?.get()[level]({ code, ms: Math.round(elapsed() * 1000), err: ce.cause ?? ce.rawMessage }, 'rpc failed');
      throw err;
    } finally {
      metrics.rpcDuration.observe({ method: `${req.service.typeName}/${req.method.name}`, code }, elapsed());
    }
  };
}

const CODES: Record<ErrorKind, Code> = {
  invalid_argument: Code.InvalidArgument,
  unauthenticated: Code.Unauthenticated,
  permission_denied: Code.PermissionDenied,
  not_found: Code.NotFound,
  already_exists: Code.AlreadyExists,
  failed_precondition: Code.FailedPrecondition,
  resource_exhausted: Code.ResourceExhausted,
  unavailable: Code.Unavailable,
};

export function toConnectError(err: DomainError): ConnectError {
  const info = create(ErrorInfoSchema, { type: err.type, details: err.message, validation: err.validation, retryAfterSeconds: err.retryAfterSeconds ?? 0 });
  return new ConnectError(err.message, CODES[err.kind], undefined, [{ desc: ErrorInfoSchema, value: info }], err.cause ?? err);
}

export function errorInterceptor(): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      // Another service's answer, passed through the domain: it goes on exactly as that service gave it.
      if (err instanceof RelayedError) throw err.relayed;
      if (err instanceof DomainError) throw toConnectError(err);
      if (err instanceof ConnectError) throw err;
      if (isStoreOutage(err)) {
        throw toConnectError(new DomainError('unavailable', 'store_unavailable', 'the database is not reachable; retry shortly', [], { cause: err, retryAfterSeconds: 1 }));
      }
      // Anything else is a bug or an outage: say nothing specific, keep the cause for the logs.
      throw new ConnectError('internal error', Code.Internal, undefined, undefined, err);
    }
  };
}

export function validationInterceptor(): Interceptor {
  const validator = createValidator();
  return (next) => async (req) => {
    if (!req.stream) {
      const result = validator.validate(req.method.input as DescMessage, req.message as Message);
      if (result.kind === 'invalid') {
        const validation: FieldProblem[] = result.violations.map((v) => ({ field: jsonPath(v.field), message: v.message }));
        throw toConnectError(
          new DomainError('invalid_argument', 'validation_error', validation.map((v) => `${v.field}: ${v.message}`).join('; '), validation),
        );
      }
      if (result.kind === 'error') throw new ConnectError('request validation failed', Code.Internal, undefined, undefined, result.error);
    }
    return next(req);
  };
}

/** A protovalidate field path with the interface's JSON names, e.g. "clientInformation.userAgent". */
function jsonPath(path: Path): string {
  let out = '';
  for (const p of path) {
    if (p.kind === 'field') out += (out ? '.' : '') + p.jsonName;
    else if (p.kind === 'extension') out += (out ? '.' : '') + `[${p.typeName}]`;
    else if (p.kind === 'list_sub') out += `[${p.index}]`;
    else if (p.kind === 'map_sub') out += `.${String(p.key)}`;
  }
  return out;
}
