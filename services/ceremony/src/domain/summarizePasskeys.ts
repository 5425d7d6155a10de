import type { CredentialRecord } from '../store/credentials.js';
import type { PasskeySummary } from './insights/types.js';

/** What the insights rules see of a user's passkeys. */
export function summarizePasskeys(credentials: readonly CredentialRecord[]): PasskeySummary[] {
  return credentials.map((c) => ({
    id: c._id,
    aaguid: c.aaguid,
    transports: [...c.transports],
    backupEligible: c.backupEligible,
    ...(c.clientEnvKey ? { clientEnvKey: c.clientEnvKey } : {}),
    ...(c.sourceOS ? { sourceOS: c.sourceOS } : {}),
    createdAt: c.createdAt,
  }));
}
