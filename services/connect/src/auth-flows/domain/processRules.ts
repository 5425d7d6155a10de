/** Which code verification an auth process's identifier allows by default. */
import type { AuthProcessRecord, VerificationMethod } from '../store/authProcesses.js';

/** The verification a process's identifier allows, or null (usernames cannot be verified). */
export function pickDefaultMethod(process: Pick<AuthProcessRecord, 'identifier'>): VerificationMethod | null {
  if (process.identifier?.type === 'email') return 'email-otp';
  if (process.identifier?.type === 'phone') return 'phone-otp';
  return null;
}
