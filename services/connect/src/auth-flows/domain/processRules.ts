/**
 * What an auth process allows next, read from its record: the default code verification of its
 * identifier, which verification fits which identifier type, whether a passkey append may be
 * offered, and whether the process may complete.
 */
import { hasPlatformAuthenticator } from '../../../../runtime/clientCapabilities.js';
import { invalidArgument } from '../../../../runtime/errors.js';
import type { AuthProcessRecord, VerificationMethod } from '../store/authProcesses.js';

/** The verification a process's identifier allows, or null (usernames cannot be verified). */
export function pickDefaultMethod(process: Pick<AuthProcessRecord, 'identifier'>): VerificationMethod | null {
  if (process.identifier?.type === 'email') return 'email-otp';
  if (process.identifier?.type === 'phone') return 'phone-otp';
  return null;
}

/** Whether a code step's verificationType fits the identifierType it names. */
export function checkVerificationPair(identifierType: string, method: string): VerificationMethod {
  const ok = (identifierType === 'email' && (method === 'email-otp' || method === 'email-link')) || (identifierType === 'phone' && method === 'phone-otp');
  if (!ok) throw invalidArgument('validation_error', `verificationType ${method} does not fit identifierType ${identifierType}`, [{ field: 'verificationType', message: `does not fit identifierType ${identifierType}` }]);
  return method as VerificationMethod;
}

/** Whether to offer a passkey append: not when the browser said it cannot create one here. */
export function canOfferAppend(process: Pick<AuthProcessRecord, 'client'>): boolean {
  const c = process.client;
  if (!c) return true;
  return hasPlatformAuthenticator(c.uvpaAvailable, c.capabilities);
}

/** Whether the process proved who the user is: a passkey (created at sign-up or used at login) or a code. */
export function isReadyToComplete(p: AuthProcessRecord): boolean {
  if (!p.userId) return false;
  return p.authType === 'signup' ? p.passkeyAppended || p.verified : p.passkeyUsed || p.verified;
}
