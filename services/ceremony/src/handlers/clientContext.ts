/** BackendClientInformation (proto) → the insights' ClientContext (domain). */
import type { BackendClientInformation } from '../../../../gen/passkeyauth/common/v1/client_information_pb.js';
import { capabilityMapOf } from '../../../runtime/clientCapabilities.js';
import type { ClientContext } from '../domain/insights/types.js';

export function toClientContext(ci: BackendClientInformation | undefined): ClientContext {
  // protovalidate has required clientInformation and its two availability flags on every RPC that carries it.
  const c = ci!;
  return {
    remoteAddress: c.remoteAddress,
    userAgent: c.userAgent,
    uvpaAvailable: c.userVerifyingPlatformAuthenticatorAvailable ?? false,
    conditionalMediationAvailable: c.conditionalMediationAvailable ?? false,
    capabilities: capabilityMapOf(c.clientCapabilities),
    ...(c.clientEnvHandle !== undefined ? { clientEnvHandle: c.clientEnvHandle } : {}),
    ...(c.javascriptFingerprint !== undefined ? { javascriptFingerprint: c.javascriptFingerprint } : {}),
    ...(c.bluetoothAvailable !== undefined ? { bluetoothAvailable: c.bluetoothAvailable } : {}),
    ...(c.passwordManagerAvailable !== undefined ? { passwordManagerAvailable: c.passwordManagerAvailable } : {}),
    ...(c.privateMode !== undefined ? { privateMode: c.privateMode } : {}),
    ...(c.parsedDeviceInfo
      ? {
          parsedDeviceInfo: {
            browserName: c.parsedDeviceInfo.browserName,
            browserVersion: c.parsedDeviceInfo.browserVersion,
            osName: c.parsedDeviceInfo.osName,
            osVersion: c.parsedDeviceInfo.osVersion,
          },
        }
      : {}),
  };
}
