/**
 * What every frontend flow handler reads of a request: the caller, as the gateway established it
 * (flowCall), and the browser's self-description at init, reduced to what later calls need (clientSnapshot).
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { FrontendClientInformation } from '../../../../../gen/passkeyauth/common/v1/client_information_pb.js';
import { capabilityMapOf } from '../../../../runtime/clientCapabilities.js';
import { clientAddressKey, projectOf, requestIdKey, tokenProcessFamilyKey, tokenProcessIdKey, userAgentKey } from '../../../../runtime/context.js';
import type { FlowCall } from '../domain/flowCall.js';
import type { ClientSnapshot } from '../store/clientSnapshot.js';

/** The caller of a frontend flow RPC, as the gateway established it (shared by the flow handlers). */
export function flowCall(ctx: HandlerContext): FlowCall {
  const processId = ctx.values.get(tokenProcessIdKey);
  const processFamily = ctx.values.get(tokenProcessFamilyKey);
  return {
    projectId: projectOf(ctx),
    requestId: ctx.values.get(requestIdKey),
    clientAddress: ctx.values.get(clientAddressKey),
    userAgent: ctx.values.get(userAgentKey),
    ...(processId ? { processId } : {}),
    ...(processId && processFamily ? { processFamily } : {}),
  };
}

/** The browser's self-description of an init call, reduced to what later calls need. */
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
