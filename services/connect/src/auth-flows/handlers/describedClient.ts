/**
 * The browser's newer description of itself on a passkey step, if it gave one. web-core 3.x sends
 * `clientInformation: {}` on passkey/append/start (and nothing on passkey/login/start): an object
 * that says nothing about the browser's passkey abilities must not replace what it reported at
 * process/init, which decides later whether a passkey append is offered (canOfferAppend in domain/processRules.ts).
 */
import type { FrontendClientInformation } from '../../../../../gen/passkeyauth/common/v1/client_information_pb.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';
import { clientSnapshot } from '../../shared/handlers/flowRequest.js';

export function describedClient(info: FrontendClientInformation | undefined): ClientSnapshot | undefined {
  if (!info) return undefined;
  const says = info.isUserVerifyingPlatformAuthenticatorAvailable !== undefined || info.canUsePasskeys !== undefined || info.isConditionalMediationAvailable !== undefined || info.clientCapabilities !== undefined;
  return says ? clientSnapshot(info) : undefined;
}
