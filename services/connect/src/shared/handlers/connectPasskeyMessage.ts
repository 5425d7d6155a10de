/** A passkey as the connect manage list and /v2/me/passkeys render it (ConnectPasskey). */
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ConnectPasskeySchema } from '../../../../../gen/passkeyauth/connect/v1/connect_flow_service_pb.js';
import type { ManagedPasskey } from '../domain/userPasskeys.js';

export function connectPasskeyMessage({ credential: c, createdMs, lastUsedMs }: ManagedPasskey): MessageInitShape<typeof ConnectPasskeySchema> {
  return {
    id: c.id,
    credentialId: c.credentialId,
    attestationType: c.attestationType,
    transport: [...c.transport],
    backupEligible: c.backupEligible,
    backupState: c.backupState,
    authenticatorAaguid: c.authenticatorAaguid,
    sourceOs: c.sourceOs,
    sourceBrowser: c.sourceBrowser,
    lastUsed: c.lastUsed,
    created: c.created,
    status: c.status,
    aaguidDetails: c.aaguidDetails,
    createdMs: BigInt(createdMs),
    lastUsedMs: BigInt(lastUsedMs),
    tags: [],
  };
}
