/**
 * What the sign-up and login flows need: their processes, the challenge service (one-time codes),
 * the ceremony service (passkeys), the client environments, and what sessions need to start one at
 * completion (SessionDeps: projects, users, identifiers, sessions). Composed in server.ts.
 */
import type { AuthProcessStore } from '../store/authProcesses.js';
import type { SessionDeps } from '../../sessions/index.js';
import type { ClientEnvStore } from '../../shared/store/clientEnvs.js';
import type { OneTimeCodes } from '../../shared/domain/oneTimeCodes.js';
import type { PasskeyCeremonies } from '../../shared/domain/passkeyCeremonies.js';

export interface AuthFlowDeps extends SessionDeps {
  authProcesses: AuthProcessStore;
  challenges: OneTimeCodes;
  ceremony: PasskeyCeremonies;
  clientEnvs: ClientEnvStore;
}

/** Auth processes live 30 minutes: long enough to read an email and type its code. */
export const AUTH_PROCESS_LIFETIME_SECONDS = 1800;
