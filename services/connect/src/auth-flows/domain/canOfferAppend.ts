/** Whether an auth process may offer a passkey append, by what the browser reported at process/init. */
import { hasPlatformAuthenticator } from '../../../../runtime/clientCapabilities.js';
import type { AuthProcessRecord } from '../store/authProcesses.js';

/** Whether to offer a passkey append: not when the browser said it cannot create one here. */
export function canOfferAppend(process: Pick<AuthProcessRecord, 'client'>): boolean {
  const c = process.client;
  if (!c) return true;
  return hasPlatformAuthenticator(c.uvpaAvailable, c.capabilities);
}
