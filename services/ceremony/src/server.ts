/** createServer(deps): the ceremony service's routes and runtime endpoints; never listens. */
import type { ConnectRouter } from '@connectrpc/connect';
import type { Server } from 'node:http';
import { AuthEventService } from '../../../gen/passkeyauth/ceremony/v1/auth_event_service_pb.js';
import { CeremonyService } from '../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { createRpcServer, type RuntimeDeps } from '../../runtime/server.js';
import type { CeremonyDomainDeps } from './domain/deps.js';
import { authEventServiceImpl } from './handlers/authEventService.js';
import { ceremonyServiceImpl } from './handlers/ceremonyService.js';

export type CeremonyDeps = CeremonyDomainDeps & RuntimeDeps;

export function ceremonyRoutes(deps: CeremonyDomainDeps) {
  return (router: ConnectRouter) => {
    router.service(CeremonyService, ceremonyServiceImpl(deps));
    router.service(AuthEventService, authEventServiceImpl(deps));
  };
}

export function createServer(deps: CeremonyDeps): Server {
  return createRpcServer(ceremonyRoutes(deps), deps);
}
