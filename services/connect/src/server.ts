/** createServer(deps): the connect service's routes and runtime endpoints; never listens. */
import type { ConnectRouter } from '@connectrpc/connect';
import type { Server } from 'node:http';
import { AuthFlowService } from '../../../gen/passkeyauth/connect/v1/auth_flow_service_pb.js';
import { ConnectFlowService } from '../../../gen/passkeyauth/connect/v1/connect_flow_service_pb.js';
import { ConnectTokenService } from '../../../gen/passkeyauth/connect/v1/connect_token_service_pb.js';
import { MeService } from '../../../gen/passkeyauth/connect/v1/me_service_pb.js';
import { ProjectConfigService } from '../../../gen/passkeyauth/connect/v1/project_config_service_pb.js';
import { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { SessionService } from '../../../gen/passkeyauth/connect/v1/session_service_pb.js';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { createRpcServer, type RuntimeDeps } from '../../runtime/server.js';
import type { AuthFlowDeps } from './auth-flows/domain/authDeps.js';
import type { ConnectTokenDeps } from './connect-tokens/domain/connectTokenDeps.js';
import type { ConnectFlowDeps } from './connect-flows/domain/flowDeps.js';
import type { MeDeps } from './me/domain/meDeps.js';
import type { ProjectDeps } from './projects/domain/projectDeps.js';
import type { SessionDeps } from './sessions/domain/sessionDeps.js';
import type { UserDeps } from './users/domain/userDeps.js';
import { authFlowServiceImpl } from './auth-flows/handlers/authFlowService.js';
import { connectFlowServiceImpl } from './connect-flows/handlers/connectFlowService.js';
import { connectTokenServiceImpl } from './connect-tokens/handlers/connectTokenService.js';
import { meServiceImpl } from './me/handlers/meService.js';
import { projectConfigServiceImpl, projectServiceImpl } from './projects/handlers/projectService.js';
import { sessionServiceImpl } from './sessions/handlers/sessionService.js';
import { userServiceImpl } from './users/handlers/userService.js';
import { confirmUserEvent } from './users/domain/confirmUserEvent.js';
import { confirmSessionEvent, type SessionStore } from './sessions/index.js';
import type { UserStore } from './users/index.js';
import type { ChangeConfirmer } from '../../runtime/outbox.js';

export type ConnectServiceDeps = ProjectDeps & UserDeps & ConnectTokenDeps & ConnectFlowDeps & SessionDeps & MeDeps & AuthFlowDeps;
export type ConnectDeps = ConnectServiceDeps & RuntimeDeps;

export function connectRoutes(deps: ConnectServiceDeps) {
  return (router: ConnectRouter) => {
    router.service(UserService, userServiceImpl(deps));
    router.service(ProjectService, projectServiceImpl(deps));
    router.service(ProjectConfigService, projectConfigServiceImpl(deps));
    router.service(ConnectTokenService, connectTokenServiceImpl(deps));
    router.service(ConnectFlowService, connectFlowServiceImpl(deps));
    router.service(MeService, meServiceImpl(deps));
    router.service(SessionService, sessionServiceImpl(deps));
    router.service(AuthFlowService, authFlowServiceImpl(deps));
  };
}

/** connect's ChangeConfirmer (services/runtime/outbox.ts): each event type asks the feature whose change it announces. */
export function confirmConnectEvent(users: UserStore, sessions: SessionStore): ChangeConfirmer {
  const user = confirmUserEvent(users);
  const session = confirmSessionEvent(sessions);
  return (event) => (event.type === 'session.revoked' ? session(event) : user(event));
}

export function createServer(deps: ConnectDeps): Server {
  return createRpcServer(connectRoutes(deps), deps);
}
