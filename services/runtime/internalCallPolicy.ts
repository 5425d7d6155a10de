/**
 * Who may call what between the processes, in one place. A caller token (internalAuth.ts) proves
 * which process calls; this list says which RPCs of a service that process may call. Everything
 * else is refused as `permission_denied` and logged, so a leaked or misused token of one process
 * cannot do what another may (a token naming `challenge` cannot delete a user through connect).
 *
 * - The gateway may call every RPC that has a REST route (it exposes exactly those; the route
 *   option in proto/ is the single source) plus the project RPCs its authenticators use.
 * - ceremony, challenge and connect may call only the RPCs their client adapters call
 *   (services/<caller>/src/clients/, services/runtime/projectFactsCache.ts). The test
 *   services/runtime/test/internalCallPolicy.test.ts reads those files and fails when a call
 *   is missing here or listed here but no longer made, so the list follows the code.
 */
import { hasOption, type DescMethod, type DescService } from '@bufbuild/protobuf';
import { CeremonyService } from '../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { ChallengeService } from '../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { AuthFlowService } from '../../gen/passkeyauth/connect/v1/auth_flow_service_pb.js';
import { ConnectFlowService } from '../../gen/passkeyauth/connect/v1/connect_flow_service_pb.js';
import { ConnectTokenService } from '../../gen/passkeyauth/connect/v1/connect_token_service_pb.js';
import { MeService } from '../../gen/passkeyauth/connect/v1/me_service_pb.js';
import { ProjectService } from '../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { SessionService } from '../../gen/passkeyauth/connect/v1/session_service_pb.js';
import { UserService } from '../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { route } from '../../gen/passkeyauth/gateway/v1/http_pb.js';

export const INTERNAL_SERVICES = ['ceremony', 'challenge', 'connect'] as const;
export type InternalService = (typeof INTERNAL_SERVICES)[number];
export const INTERNAL_CALLERS = ['gateway', ...INTERNAL_SERVICES] as const;
export type InternalCaller = (typeof INTERNAL_CALLERS)[number];

/** The RPC services each process serves. */
export const SERVED: Record<InternalService, readonly DescService[]> = {
  ceremony: [CeremonyService],
  challenge: [ChallengeService],
  connect: [AuthFlowService, ConnectFlowService, ConnectTokenService, MeService, ProjectService, SessionService, UserService],
};

/** The RPCs each caller calls directly, beyond the gateway's routed ones. */
export const DIRECT_CALLS: Record<InternalCaller, readonly DescMethod[]> = {
  // Authenticators: Basic (authenticateBackend), Bearer and CORS (the project facts cache, isOriginAllowed).
  gateway: [ProjectService.method.authenticateBackend, ProjectService.method.getProjectPublicInfo, ProjectService.method.isOriginAllowed],
  // Project facts (rpId, origins), the user a ceremony is for, the signature of signedPasskeyData, the "passkey added" notice.
  ceremony: [ProjectService.method.getProjectPublicInfo, ProjectService.method.signPasskeyData, UserService.method.getUser, ChallengeService.method.sendNotification],
  // Project settings (delivery, attempts) and whether the user exists.
  challenge: [ProjectService.method.getProjectPublicInfo, UserService.method.getUser],
  // The flows connect orchestrates, and the clean-up of a deleted user's data.
  connect: [
    CeremonyService.method.startAppend,
    CeremonyService.method.finishAppend,
    CeremonyService.method.startLogin,
    CeremonyService.method.finishLogin,
    CeremonyService.method.startMediation,
    CeremonyService.method.finishMediation,
    CeremonyService.method.recordClientEvent,
    CeremonyService.method.listCredentials,
    CeremonyService.method.getUserHandle,
    CeremonyService.method.deleteCredential,
    CeremonyService.method.deleteUserCredentials,
    ChallengeService.method.createAndDeliverChallenge,
    ChallengeService.method.verifyChallenge,
    ChallengeService.method.deleteUserChallenges,
  ],
};

/** The name an RPC is known by in the policy and the logs: `passkeyauth.connect.v1.UserService/GetUser`. */
export function procedureOf(method: Pick<DescMethod, 'name' | 'parent'>): string {
  return `${method.parent.typeName}/${method.name}`;
}

/** The process serving an RPC service, from its proto package (`passkeyauth.<service>.v1`). */
export function internalServiceOf(service: DescService): InternalService {
  const name = service.file.proto.package.split('.')[1];
  const found = INTERNAL_SERVICES.find((s) => s === name);
  if (!found) throw new Error(`${service.typeName} belongs to no backing service`);
  return found;
}

/** For one service: each caller and the set of procedures it may call there (callers that may call nothing are absent). */
export function callPolicyFor(target: InternalService): ReadonlyMap<string, ReadonlySet<string>> {
  const policy = new Map<string, ReadonlySet<string>>();
  for (const caller of INTERNAL_CALLERS) {
    const allowed = new Set(DIRECT_CALLS[caller].filter((m) => internalServiceOf(m.parent) === target).map(procedureOf));
    if (caller === 'gateway') {
      for (const service of SERVED[target]) for (const m of service.methods) if (hasOption(m, route)) allowed.add(procedureOf(m));
    }
    if (allowed.size > 0) policy.set(caller, allowed);
  }
  return policy;
}
