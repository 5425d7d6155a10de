/** Whether a code step's verificationType fits the identifierType it names. */
import { invalidArgument } from '../../../../runtime/errors.js';
import type { VerificationMethod } from '../store/authProcesses.js';

export function checkVerificationPair(identifierType: string, method: string): VerificationMethod {
  const ok = (identifierType === 'email' && (method === 'email-otp' || method === 'email-link')) || (identifierType === 'phone' && method === 'phone-otp');
  if (!ok) throw invalidArgument('validation_error', `verificationType ${method} does not fit identifierType ${identifierType}`, [{ field: 'verificationType', message: `does not fit identifierType ${identifierType}` }]);
  return method as VerificationMethod;
}
