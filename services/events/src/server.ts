/** createServer(deps): the events service's routes and runtime endpoints; never listens. */
import type { ConnectRouter } from '@connectrpc/connect';
import type { Server } from 'node:http';
import { EventService } from '../../../gen/passkeyauth/events/v1/event_service_pb.js';
import { createRpcServer, type RuntimeDeps } from '../../runtime/server.js';
import { eventServiceImpl, type EventServiceDeps } from './handlers/eventService.js';

export function createServer(deps: EventServiceDeps & RuntimeDeps): Server {
  return createRpcServer((router: ConnectRouter) => {
    router.service(EventService, eventServiceImpl(deps));
  }, deps);
}
