/** createServer(deps): the connect service's routes and runtime endpoints; never listens. */
import type { ConnectRouter } from '@connectrpc/connect';
import type { Server } from 'node:http';
import { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { createRpcServer, type RuntimeDeps } from '../../runtime/server.js';
import type { ProjectDeps } from './domain/projectDeps.js';
import type { UserDeps } from './domain/userDeps.js';
import { projectServiceImpl } from './handlers/projectService.js';
import { userServiceImpl } from './handlers/userService.js';

export type ConnectServiceDeps = ProjectDeps & UserDeps;
export type ConnectDeps = ConnectServiceDeps & RuntimeDeps;

export function connectRoutes(deps: ConnectServiceDeps) {
  return (router: ConnectRouter) => {
    router.service(UserService, userServiceImpl(deps));
    router.service(ProjectService, projectServiceImpl(deps));
  };
}

export function createServer(deps: ConnectDeps): Server {
  return createRpcServer(connectRoutes(deps), deps);
}
