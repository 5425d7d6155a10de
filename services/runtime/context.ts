/** Per-request values, carried in Connect's contextValues (never in module globals). */
import { createContextKey, type HandlerContext } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { unauthenticated } from './errors.js';

/** Headers the gateway (and services calling each other) use to pass the request's identity along. */
export const HEADERS = {
  requestId: 'x-request-id',
  projectId: 'x-passkeyauth-project-id',
  /** The end user's (or calling server's) network address as the gateway saw it, for rate limits. */
  clientAddress: 'x-passkeyauth-client-address',
} as const;

export const requestIdKey = createContextKey<string>('', { description: 'request ID' });
export const projectIdKey = createContextKey<string>('', { description: 'authenticated project ID' });
export const clientAddressKey = createContextKey<string>('', { description: 'caller network address' });
export const loggerKey = createContextKey<Logger | null>(null, { description: 'request logger' });

/** The project the caller authenticated as; RPCs that act on tenant data require it. */
export function projectOf(ctx: HandlerContext): string {
  const id = ctx.values.get(projectIdKey);
  if (!id) throw unauthenticated('missing_project', 'no authenticated project on this call');
  return id;
}

/** Headers that forward the current request's identity to another service. */
export function forwardHeaders(ctx: HandlerContext): Record<string, string> {
  const h: Record<string, string> = { [HEADERS.requestId]: ctx.values.get(requestIdKey) };
  const project = ctx.values.get(projectIdKey);
  if (project) h[HEADERS.projectId] = project;
  return h;
}
