/** Per-request values, carried in Connect's contextValues (never in module globals). */
import { createContextKey, type HandlerContext } from '@connectrpc/connect';
import type { Level, Logger } from 'pino';
import { unauthenticated } from './errors.js';

/** The internal header names live with the other wire constants; re-exported for the services' clients. */
export { HEADERS } from './wire.js';

export const requestIdKey = createContextKey<string>('', { description: 'request ID' });
export const projectIdKey = createContextKey<string>('', { description: 'authenticated project ID' });
export const clientAddressKey = createContextKey<string>('', { description: 'caller network address' });
export const userAgentKey = createContextKey<string>('', { description: 'end user User-Agent' });
export const tokenKindKey = createContextKey<string>('', { description: 'verified bearer token kind' });
export const tokenProcessIdKey = createContextKey<string>('', { description: 'process named by a verified process token' });
export const tokenProcessFamilyKey = createContextKey<'auth' | 'connect' | undefined>(undefined, { description: 'family of the process named by a verified process token' });
export const tokenUserIdKey = createContextKey<string>('', { description: 'user named by a verified session token' });
export const tokenSessionIdKey = createContextKey<string>('', { description: 'session named by a verified session token' });
export const refreshTokenKey = createContextKey<string>('', { description: 'presented refresh token (unverified)' });
/**
 * A request's logger, made on first use: a pino child costs the redaction of its bindings, and
 * most RPCs write no line (successes log at debug).
 */
export interface RequestLogger {
  /** The child logger carrying the request's bindings (made once per request). */
  get(): Logger;
  /** Whether a line at this level would be written; asked of the parent, without making the child. */
  enabled(level: Level): boolean;
}
export const loggerKey = createContextKey<RequestLogger | null>(null, { description: 'request logger' });

/** The project the caller authenticated as; RPCs that act on tenant data require it. */
export function projectOf(ctx: HandlerContext): string {
  const id = ctx.values.get(projectIdKey);
  if (!id) throw unauthenticated('missing_project', 'no authenticated project on this call');
  return id;
}
