/** What the sign-up and login flows need beyond the connect flows: their processes and the challenge service. */
import type { AuthProcessStore } from '../store/authProcesses.js';
import type { ConnectFlowDeps } from '../../connect-flows/index.js';
import type { OneTimeCodes } from '../../shared/domain/oneTimeCodes.js';

export interface AuthFlowDeps extends ConnectFlowDeps {
  authProcesses: AuthProcessStore;
  challenges: OneTimeCodes;
}

/** Auth processes live 30 minutes: long enough to read an email and type its code. */
export const AUTH_PROCESS_LIFETIME_SECONDS = 1800;
