/**
 * Call: the route's RPC on its backing service, with the internal headers that tell the service
 * who called (services/runtime/wire.ts). They are built from what the gateway verified, never
 * copied from the client.
 */
import type { DescMessage, DescMethodUnary, Message } from '@bufbuild/protobuf';
import type { Transport, UnaryResponse } from '@connectrpc/connect';
import type { IncomingMessage } from 'node:http';
import { HEADERS } from '../../../services/runtime/wire.js';
import type { Caller } from '../auth/authenticator.js';
import { identityHeaders } from '../auth/bearerAuth.js';
import type { Route } from '../routeTable.js';
import { serviceNameOf, type ServiceName } from '../upstreams.js';

export function internalHeaders(req: IncomingMessage, requestId: string, source: string, caller: Caller): Record<string, string> {
  const headers: Record<string, string> = {
    [HEADERS.requestId]: requestId,
    [HEADERS.clientAddress]: source,
    ...identityHeaders(caller.principal),
  };
  if (caller.projectId) headers[HEADERS.projectId] = caller.projectId;
  // Connect flows hand the browser's user agent to the ceremony insights; bounded, never required.
  const userAgent = req.headers['user-agent'];
  if (typeof userAgent === 'string' && userAgent) headers[HEADERS.userAgent] = userAgent.slice(0, 1024);
  return headers;
}

export function callService(
  upstreams: Record<ServiceName, Transport>,
  timeoutMs: number,
  route: Route,
  headers: Record<string, string>,
  message: Message,
): Promise<UnaryResponse<DescMessage, DescMessage>> {
  const transport = upstreams[serviceNameOf(route.service)];
  // buildRouteTable admits unary RPCs only.
  return transport.unary(route.method as DescMethodUnary, undefined, timeoutMs, headers, message);
}
