import { failedPrecondition } from '../../../runtime/errors.js';
import type { EndpointDeps } from './createWebhookEndpoint.js';
import { endpointNotFound, findWebhookEndpoint } from './manageWebhookEndpoints.js';
import type { WebhookEndpointRecord } from './ports.js';
import { newSigningSecret, sealSecret, secretAad } from './sealSecret.js';

/** How long the old secret stays valid when the request names no overlap: a day to roll the new one out. */
export const DEFAULT_OVERLAP_SECONDS = 24 * 3600;
/** The longest overlap (the proto's bound too): two valid secrets are a wider target, so not for long. */
export const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;

/**
 * Makes a new signing secret and answers it (once, like the create's). The current secret stays
 * valid for the overlap: until then every delivery carries a signature with each, so a receiver
 * holding either verifies it. The old one stays sealed where it was (same key and binding) and is
 * removed after the overlap. A rotation during an overlap ends the older secret at once: at most
 * two are valid. An overlap of 0 ends the current secret at once (a leaked secret).
 */
export async function rotateSigningSecret(
  deps: Pick<EndpointDeps, 'endpoints' | 'masterKey' | 'now'>,
  input: { projectId: string; endpointId: string; overlapSeconds?: number },
): Promise<{ record: WebhookEndpointRecord; signingSecret: string }> {
  const overlapSeconds = input.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS;
  const existing = await findWebhookEndpoint(deps, input.projectId, input.endpointId);
  const now = deps.now();
  const signingSecret = newSigningSecret();
  const record = await deps.endpoints.rotateSigningSecret(input.projectId, input.endpointId, {
    currentIv: existing.signingSecret.iv,
    next: sealSecret(deps.masterKey, secretAad(input.projectId, input.endpointId, 'signing'), signingSecret),
    previous: overlapSeconds > 0 ? { secret: existing.signingSecret, expiresAt: new Date(now.getTime() + overlapSeconds * 1000) } : null,
    now,
  });
  if (!record) {
    if (!(await deps.endpoints.find(input.projectId, input.endpointId))) throw endpointNotFound(input.endpointId);
    // Another rotation won the guarded write: this one's secret was never stored, so it must not be answered.
    throw failedPrecondition('webhook_secret_rotated_concurrently', 'the signing secret was rotated by another request at the same time; rotate again');
  }
  return { record, signingSecret };
}
