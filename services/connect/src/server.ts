/** createServer(deps): the connect service's routes and runtime endpoints; never listens. */
import type { ConnectRouter } from '@connectrpc/connect';
import type { Server } from 'node:http';
import { ConnectFlowService } from '../../../gen/passkeyauth/connect/v1/connect_flow_service_pb.js';
import { ConnectTokenService } from '../../../gen/passkeyauth/connect/v1/connect_token_service_pb.js';
import { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { createRpcServer, type RuntimeDeps } from '../../runtime/server.js';
import type { ConnectTokenDeps } from './domain/connectTokenDeps.js';
import type { ConnectFlowDeps } from './domain/flows/flowDeps.js';
import type { ProjectDeps } from './domain/projectDeps.js';
import type { UserDeps } from './domain/userDeps.js';
import { connectFlowServiceImpl } from './handlers/connectFlowService.js';
import { connectTokenServiceImpl } from './handlers/connectTokenService.js';
import { projectServiceImpl } from './handlers/projectService.js';
import { userServiceImpl } from './handlers/userService.js';

export type ConnectServiceDeps = ProjectDeps & UserDeps & ConnectTokenDeps & ConnectFlowDeps;
export type ConnectDeps = ConnectServiceDeps & RuntimeDeps;

export function connectRoutes(deps: ConnectServiceDeps) {
  return (router: ConnectRouter) => {
    router.service(UserService, userServiceImpl(deps));
    router.service(ProjectService, projectServiceImpl(deps));
    router.service(ConnectTokenService, connectTokenServiceImpl(deps));
    router.service(ConnectFlowService, connectFlowServiceImpl(deps));
  };
}

export function createServer(deps: ConnectDeps): Server {
  return createRpcServer(connectRoutes(deps), deps);
}
