/**
 * The headers that carry a call's identity on to another service: request ID, project and the end
 * user's address (so per-address limits downstream apply to the real client). The domain names
 * the caller (ServiceCall); turning it into headers is the adapter's business.
 */
import { HEADERS } from '../../../runtime/context.js';
import type { ServiceCall } from '../shared/domain/passkeyCeremonies.js';

export function serviceHeaders(call: ServiceCall): Record<string, string> {
  return {
    [HEADERS.requestId]: call.requestId,
    [HEADERS.projectId]: call.projectId,
    ...(call.clientAddress ? { [HEADERS.clientAddress]: call.clientAddress } : {}),
  };
}
