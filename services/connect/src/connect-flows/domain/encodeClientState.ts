/**
 * newClientState: client state the web SDK merges into its local storage (ClientStateService
 * .enrichFromURL: base64 of JSON, each entry {data, source, ts} taken only if newer than its own).
 * We send the last passkey operation completed in this client environment, so the SDK's one-tap
 * hint comes back after its storage lost it; only for environments the client proved it holds.
 */
import type { ClientEnvRecord } from '../../shared/store/clientEnvs.js';

export function encodeClientState(env: ClientEnvRecord): string | undefined {
  const last = env.lastLogin;
  if (!last) return undefined;
  const state = {
    lastLogin: {
      data: { operationType: last.operationType, identifierValue: last.identifierValue, identifierType: last.identifierType, ceremonyType: last.ceremonyType },
      source: 'url',
      ts: last.at.getTime(),
    },
  };
  return Buffer.from(JSON.stringify(state), 'utf8').toString('base64');
}
