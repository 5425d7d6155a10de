/**
 * What the client can do, from the backend variant of clientInformation. Clients report the same
 * ability through several fields (the legacy booleans and the newer getClientCapabilities() map),
 * so any one of them saying "yes" counts.
 */
import { hasPlatformAuthenticator } from '../../../../runtime/clientCapabilities.js';
import type { ClientContext } from './types.js';

export interface ClientCapabilities {
  /** A user-verifying platform authenticator (Touch ID, Windows Hello, Android screen lock, …). */
  platformAuthenticator: boolean;
  /** Conditional mediation (passkey autofill). */
  conditionalMediation: boolean;
  /** Conditional create (silent passkey upgrade after a password login). */
  conditionalCreate: boolean;
  /** Cross-device (hybrid, QR code + Bluetooth) authentication. */
  hybrid: boolean;
  /** A password manager / credential provider is present. */
  passwordManager: boolean;
  privateMode: boolean;
  /** Some way to create a passkey: locally, or on a phone through hybrid. */
  canCreatePasskey: boolean;
}

export function readClientCapabilities(client: ClientContext): ClientCapabilities {
  const caps = client.capabilities ?? {};
  const platformAuthenticator = hasPlatformAuthenticator(client.uvpaAvailable, caps);
  // Bluetooth is what hybrid needs on the client side; older clients report only that.
  const hybrid = caps.hybridTransport === true || client.bluetoothAvailable === true;
  return {
    platformAuthenticator,
    conditionalMediation: client.conditionalMediationAvailable === true || caps.conditionalMediation === true,
    conditionalCreate: caps.conditionalCreate === true,
    hybrid,
    passwordManager: client.passwordManagerAvailable === true,
    privateMode: client.privateMode === true,
    canCreatePasskey: platformAuthenticator || hybrid,
  };
}
