/**
 * How long connect processes live. A login process carries the conditional-UI challenge, whose
 * ceremony session lives five minutes, so the process (and the web SDK's cached init answer)
 * must not outlive it; append and management processes only hold a token claim.
 */
import type { ConnectFlow } from '../../connect-flows/store/processes.js';

export const PROCESS_LIFETIME_SECONDS: Record<ConnectFlow, number> = {
  login: 300,
  append: 900,
  manage: 900,
};
