/**
 * The one mapping of the WebAuthn client capabilities a browser reports
 * (PublicKeyCredential.getClientCapabilities(), as the SDKs send them in clientInformation). The
 * frontend and the backend variants of the proto message carry the same five fields; the ceremony
 * service reads them from application servers, the connect service from browsers, and both keep
 * them in this plain shape, with a capability the client did not report left out rather than
 * taken as false.
 */

export interface ClientCapabilityMap {
  conditionalCreate?: boolean;
  conditionalMediation?: boolean;
  hybridTransport?: boolean;
  passkeyPlatformAuthenticator?: boolean;
  userVerifyingPlatformAuthenticator?: boolean;
}

const NAMES = ['conditionalCreate', 'conditionalMediation', 'hybridTransport', 'passkeyPlatformAuthenticator', 'userVerifyingPlatformAuthenticator'] as const;

/** The reported capabilities of either proto variant (or any object with those fields), nothing else. */
export function capabilityMapOf(reported: ClientCapabilityMap | undefined): ClientCapabilityMap {
  const map: ClientCapabilityMap = {};
  if (!reported) return map;
  for (const name of NAMES) if (reported[name] !== undefined) map[name] = reported[name];
  return map;
}

/**
 * Whether the client has a user-verifying platform authenticator (Touch ID, Windows Hello, an
 * Android screen lock). Clients report it through the legacy isUserVerifyingPlatformAuthenticatorAvailable()
 * and through two capabilities; any one of them saying yes counts.
 */
export function hasPlatformAuthenticator(uvpaAvailable: boolean | undefined, capabilities: ClientCapabilityMap): boolean {
  return uvpaAvailable === true || capabilities.passkeyPlatformAuthenticator === true || capabilities.userVerifyingPlatformAuthenticator === true;
}
