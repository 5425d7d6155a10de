/**
 * The ceremony service speaks the backend variant of clientInformation (what an application's
 * server reports). In connect flows the browser talks to us directly, so we build it from the
 * process's snapshot and what the gateway saw: the address, the User-Agent and our own handle.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { BackendClientInformationSchema } from '../../../../gen/passkeyauth/common/v1/client_information_pb.js';
import { capabilityMapOf } from '../../../runtime/clientCapabilities.js';
import type { CeremonyClient } from '../shared/domain/passkeyCeremonies.js';

export function backendClientInformation(client: CeremonyClient): MessageInitShape<typeof BackendClientInformationSchema> {
  const c = client.snapshot;
  return {
    // The ceremony requires both; a call that bypassed the gateway has neither.
    remoteAddress: client.remoteAddress || 'unknown',
    userAgent: client.userAgent || 'unknown',
    userVerifyingPlatformAuthenticatorAvailable: c.uvpaAvailable,
    conditionalMediationAvailable: c.conditionalMediationAvailable,
    clientCapabilities: capabilityMapOf(c.capabilities),
    clientEnvHandle: client.clientEnvHandle,
    // The field holds at most 256 characters.
    ...(c.visitorId ? { javascriptFingerprint: c.visitorId.slice(0, 256) } : {}),
    bluetoothAvailable: c.bluetoothAvailable,
    privateMode: c.privateMode,
  };
}
