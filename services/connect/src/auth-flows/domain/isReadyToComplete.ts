/** Whether an auth process may complete (completeProcess.ts), or skipping the passkey append completes it (skipBlock.ts). */
import type { AuthProcessRecord } from '../store/authProcesses.js';

/** Whether the process proved who the user is: a passkey (created at sign-up or used at login) or a code. */
export function isReadyToComplete(p: AuthProcessRecord): boolean {
  if (!p.userId) return false;
  return p.authType === 'signup' ? p.passkeyAppended || p.verified : p.passkeyUsed || p.verified;
}
