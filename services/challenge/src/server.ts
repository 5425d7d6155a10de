/** createServer(deps): the challenge service's routes and runtime endpoints; never listens. */
import type { ConnectRouter } from '@connectrpc/connect';
import type { Server } from 'node:http';
import { ChallengeService } from '../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { createRpcServer, type RuntimeDeps } from '../../runtime/server.js';
import type { CreateChallengeDeps } from './domain/createChallenge.js';
import { challengeServiceImpl } from './handlers/challengeService.js';

export type ChallengeDeps = CreateChallengeDeps & RuntimeDeps;

export function challengeRoutes(deps: CreateChallengeDeps) {
  return (router: ConnectRouter) => {
    router.service(ChallengeService, challengeServiceImpl(deps));
  };
}

export function createServer(deps: ChallengeDeps): Server {
  return createRpcServer(challengeRoutes(deps), deps);
}
