/**
 * createServer(deps): the ceremony service (WebAuthn registration and authentication). Its RPCs
 * arrive with the ceremony issue; until then it serves only the runtime endpoints.
 */
import type { ConnectRouter } from '@connectrpc/connect';
import type { Server } from 'node:http';
import { createRpcServer, type RuntimeDeps } from '../../runtime/server.js';

export type CeremonyDeps = RuntimeDeps;

export function ceremonyRoutes() {
  return (_router: ConnectRouter) => {
    // No RPCs registered yet: only the runtime endpoints (/healthz, /readyz, /metrics) are served.
  };
}

export function createServer(deps: CeremonyDeps): Server {
  return createRpcServer(ceremonyRoutes(), deps);
}
