/**
 * Who may call what between the processes, in one place. A caller token (internalAuth.ts) proves
 * which process calls; this list says which RPCs of a service that process may call. Everything
 * else is refused as `permission_denied` and logged, so a leaked or misused token of one process
 * cannot do what another may (a token naming `challenge` cannot delete a user through connect).
 *
 * - The gateway may call every RPC that has a REST route (it exposes exactly those; the route
 *   option in proto/ is the single source) plus the project RPCs its authenticators use.
 * - ceremony, challenge, connect and events may call only the RPCs their client adapters call
 *   (services/<caller>/src/clients/, services/runtime/projectFactsCache.ts). The test
 *   services/runtime/test/internalCallPolicy.test.ts reads those files and fails when a call
 *   is missing here or listed here but no longer made, so the list follows the code.
 */
import { hasOption, type DescMethod, type DescService } from '@bufbuild/protobuf';
import { CeremonyService } from '../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { ChallengeService } from '../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { ProjectService } from '../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { UserService } from '../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { EventService } from '../../gen/passkeyauth/events/v1/event_service_pb.js';
import { route } from '../../gen/passkeyauth/gateway/v1/http_pb.js';

export const INTERNAL_SERVICES = ['ceremony', 'challenge', 'connect', 'events'] as const;
export type InternalService = (typeof INTERNAL_SERVICES)[number];
export const INTERNAL_CALLERS = ['gateway', ...INTERNAL_SERVICES] as const;
export type InternalCaller = (typeof INTERNAL_CALLERS)[number];

/** The RPCs each caller calls directly, beyond the gateway's routed ones. */
export const DIRECT_CALLS: Record<InternalCaller, readonly DescMethod[]> = {
  // Authenticators: Basic (authenticateBackend), Bearer and CORS (the project facts cache, isOriginAllowed).
  gateway: [ProjectService.method.authenticateBackend, ProjectService.method.getProjectPublicInfo, ProjectService.method.isOriginAllowed],
  // Project facts (rpId, origins), the user a ceremony is for, the "passkey added" notice, and the signature of
  // signedPasskeyData for B5/B7 of the backend API with signPasskeyData: true only (a connect login never asks
  // the ceremony to sign: connect signs it itself, so no ceremony calls back into connect during one).
  ceremony: [ProjectService.method.getProjectPublicInfo, ProjectService.method.signPasskeyData, UserService.method.getUser, ChallengeService.method.sendNotification, EventService.method.publishEvents, EventService.method.getSubscribedEventTypes],
  // Project settings (delivery, attempts), whether the user exists, and its outbox relay (challenge.locked).
  challenge: [ProjectService.method.getProjectPublicInfo, UserService.method.getUser, EventService.method.publishEvents, EventService.method.getSubscribedEventTypes],
  // The flows connect orchestrates, the "passkey added" notice of /v2/me, and the clean-up of a deleted user's data.
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
    ChallengeService.method.sendNotification,
    // The outbox relay (services/runtime/outbox.ts) hands the events of connect's changes over,
    // and the outbox asks which types a project's endpoints subscribe to (the others are not written).
    EventService.method.publishEvents,
    EventService.method.getSubscribedEventTypes,
  ],
  // The events service calls no other service: it only delivers to the projects' receivers.
  events: [],
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

export interface CallPolicy {
  /** Whether `caller` may call `method` of this service. */
  allows(caller: string, method: DescMethod): boolean;
}

/**
 * The policy of one service. The direct calls are sets built once; whether an RPC is routed is read
 * from its descriptor the first time it is called and remembered, so a check is a set or map lookup
 * (the map holds at most one entry per RPC the service serves). Only the descriptors of the RPCs
 * named here are imported: a service process does not load the other services' descriptors.
 */
export function callPolicyFor(target: InternalService): CallPolicy {
  const direct = new Map<string, ReadonlySet<string>>();
  for (const caller of INTERNAL_CALLERS) {
    const allowed = new Set(DIRECT_CALLS[caller].filter((m) => internalServiceOf(m.parent) === target).map(procedureOf));
    if (allowed.size > 0) direct.set(caller, allowed);
  }
  const routed = new Map<string, boolean>();
  return {
    allows(caller, method) {
      const procedure = procedureOf(method);
      if (direct.get(caller)?.has(procedure)) return true;
      if (caller !== 'gateway') return false;
      let isRouted = routed.get(procedure);
      if (isRouted === undefined) {
        isRouted = internalServiceOf(method.parent) === target && hasOption(method, route);
        routed.set(procedure, isRouted);
      }
      return isRouted;
    },
  };
}

/** The services a caller may call at all (the gateway: every service, since each has routed RPCs). */
export function calleesOf(caller: InternalCaller): InternalService[] {
  if (caller === 'gateway') return [...INTERNAL_SERVICES];
  return INTERNAL_SERVICES.filter((t) => DIRECT_CALLS[caller].some((m) => internalServiceOf(m.parent) === t));
}
