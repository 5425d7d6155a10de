/** The browser's description of itself in an auth process, as the passkey steps may renew it. */
import type { AuthProcessRecord } from '../store/authProcesses.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';
import type { AuthFlowDeps } from './authDeps.js';
import { advanceProcess } from './advanceProcess.js';

/** A newer description of the browser replaces the process's (the insights use it). */
export async function updateProcessClient(deps: AuthFlowDeps, process: AuthProcessRecord, client: ClientSnapshot | undefined): Promise<AuthProcessRecord> {
  if (!client) return process;
  return advanceProcess(deps, process, [process.block], { client });
}
