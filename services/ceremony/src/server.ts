/** createServer(deps): the ceremony service's routes and runtime endpoints; never listens. */
import type { ConnectRouter } from '@connectrpc/connect';
import type { Server } from 'node:http';
import { CeremonyService } from '../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { createRpcServer, type RuntimeDeps } from '../../runtime/server.js';
import type { CeremonyDomainDeps } from './domain/deps.js';
import { ceremonyServiceImpl } from './handlers/ceremonyService.js';

export type CeremonyDeps = CeremonyDomainDeps & RuntimeDeps;

export function ceremonyRoutes(deps: CeremonyDomainDeps) {
  return (router: ConnectRouter) => {
    router.service(CeremonyService, ceremonyServiceImpl(deps));
  };
}

export function createServer(deps: CeremonyDeps): Server {
  return createRpcServer(ceremonyRoutes(deps), deps);
}
