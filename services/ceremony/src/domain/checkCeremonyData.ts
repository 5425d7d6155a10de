import { createHash, timingSafeEqual } from 'node:crypto';
import { invalidArgument } from '../../../runtime/errors.js';
import type { UserVerificationPolicy } from '../store/sessions.js';
import type { AuthenticatorDataFacts, ClientData } from './responseFields.js';

export interface CeremonyDataExpectations {
  /** "webauthn.create" for registrations, "webauthn.get" for assertions. */
  type: 'webauthn.create' | 'webauthn.get';
  origins: readonly string[];
  rpId: string;
  userVerification: UserVerificationPolicy;
}

/**
 * Checks what the client and the authenticator say about the ceremony against what the service
 * expects, each with its own error type, before the signature and attestation are verified (which
 * repeats these checks as a second line). The challenge is not checked here: the session was found
 * by it.
 */
export function checkCeremonyData(clientData: ClientData, authData: AuthenticatorDataFacts, expected: CeremonyDataExpectations): void {
  // A registration response cannot be replayed as an assertion, nor the other way round.
  if (clientData.type !== expected.type) {
    throw invalidArgument('client_data_type_mismatch', `clientDataJSON.type is "${clientData.type}", expected "${expected.type}"`);
  }
  // The browser writes the calling page's origin: it must be one of the project's origins.
  if (!expected.origins.includes(clientData.origin)) {
    throw invalidArgument('origin_mismatch', `origin ${clientData.origin} is not an origin of this project`);
  }
  // The authenticator scopes credentials to an RP ID; the response must be for ours.
  const expectedHash = createHash('sha256').update(expected.rpId).digest();
  if (authData.rpIdHash.length !== expectedHash.length || !timingSafeEqual(Buffer.from(authData.rpIdHash), expectedHash)) {
    throw invalidArgument('rp_id_mismatch', `the authenticator data is not scoped to the RP ID ${expected.rpId}`);
  }
  // User presence (a touch, a prompt) is required by WebAuthn for every ceremony here.
  if (!authData.flags.up) {
    throw invalidArgument('user_presence_missing', 'the authenticator did not confirm user presence (UP flag not set)');
  }
  // The project requires user verification (biometrics, PIN): the UV flag must be set.
  if (expected.userVerification === 'required' && !authData.flags.uv) {
    throw invalidArgument('user_verification_missing', 'the project requires user verification, but the authenticator did not verify the user (UV flag not set)');
  }
}
