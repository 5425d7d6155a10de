/**
 * Wire constants the gateway and the services must agree on, written once: the shape of a
 * project ID and the names of the internal headers that carry a request's identity between
 * processes. The proto validation rules (`(buf.validate.field).string.pattern` on project IDs in
 * proto/) mirror PROJECT_ID_PATTERN; services/runtime/test/wire.test.ts checks that they agree.
 */

/** A project ID: `pro-` and up to 30 digits (ids.ts makes 20). The source, for JSON Schema and proto. */
export const PROJECT_ID_PATTERN = '^pro-[0-9]{1,30}$';
export const PROJECT_ID = new RegExp(PROJECT_ID_PATTERN);

/** Headers the gateway (and services calling each other) use to pass the request's identity along. */
export const HEADERS = {
  requestId: 'x-request-id',
  projectId: 'x-passkeyauth-project-id',
  /** The end user's (or calling server's) network address as the gateway saw it, for rate limits. */
  clientAddress: 'x-passkeyauth-client-address',
  /** The end user's User-Agent as the gateway saw it (frontend API). */
  userAgent: 'x-passkeyauth-user-agent',
  /** Frontend API: the kind of the verified bearer token (client, process, session). */
  tokenKind: 'x-passkeyauth-token-kind',
  /** Frontend API: the process a verified process token names. */
  processId: 'x-passkeyauth-process-id',
  /** Frontend API: the family of that process (the token's `family` claim: auth or connect). */
  processFamily: 'x-passkeyauth-process-family',
  /** Frontend API: the user a verified session token names. */
  userId: 'x-passkeyauth-user-id',
  /** Frontend API: the session a verified session token names (its `sid`). */
  sessionId: 'x-passkeyauth-session-id',
  /** Frontend API: a refresh token (opaque; the connect service checks it by its hash). */
  refreshToken: 'x-passkeyauth-refresh-token',
  /** The internal caller token (internalAuth.ts): which process calls, proven by a shared key. */
  caller: 'x-passkeyauth-caller',
} as const;
