/** The browser's self-description of an init call, reduced to what later calls need. */
import type { FrontendClientInformation } from '../../../../../gen/passkeyauth/common/v1/client_information_pb.js';
import { capabilityMapOf } from '../../../../runtime/clientCapabilities.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';

export function clientSnapshot(info: FrontendClientInformation): ClientSnapshot {
  const caps = info.clientCapabilities;
  // canUsePasskeys is the SDK's deprecated name for the same platform-authenticator check.
  const uvpa = info.isUserVerifyingPlatformAuthenticatorAvailable ?? info.canUsePasskeys ?? false;
  return {
    uvpaAvailable: uvpa,
    conditionalMediationAvailable: info.isConditionalMediationAvailable ?? caps?.conditionalMediation ?? false,
    capabilities: capabilityMapOf(caps),
    ...(info.bluetoothAvailable !== undefined ? { bluetoothAvailable: info.bluetoothAvailable } : {}),
    ...(info.privateMode !== undefined ? { privateMode: info.privateMode } : {}),
    ...(info.visitorId ? { visitorId: info.visitorId } : {}),
    ...(info.isNative !== undefined ? { isNative: info.isNative } : {}),
    ...(info.webdriver !== undefined ? { webdriver: info.webdriver } : {}),
  };
}
