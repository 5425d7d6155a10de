/**
 * Whether a connect flow may be offered to a client (loginAllowed / appendAllowed / manageAllowed).
 *
 * The project's roll-out comes first (`open`, from isRolloutOpen in initFlow.ts). Then the client's capabilities:
 * - login needs some way to use a passkey here: a platform authenticator, conditional mediation
 *   (a password manager or the platform offers passkeys) or hybrid transport (a phone);
 * - append creates a passkey on this device, so it needs a user-verifying platform authenticator
 *   (the application's fallback login stays for everyone else);
 * - management lists and deletes passkeys and needs no WebAuthn at all.
 */
import { hasPlatformAuthenticator } from '../../../../runtime/clientCapabilities.js';
import type { ConnectFlow } from '../store/processes.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';

export function decideFlowAllowed(flow: ConnectFlow, client: ClientSnapshot, open: boolean): boolean {
  if (!open) return false;
  const caps = client.capabilities;
  const platform = hasPlatformAuthenticator(client.uvpaAvailable, caps);
  switch (flow) {
    case 'login':
      return platform || client.conditionalMediationAvailable || caps.hybridTransport === true;
    case 'append':
      return platform;
    case 'manage':
      return true;
  }
}
