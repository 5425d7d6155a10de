import { checkWebhookUrl } from './checkWebhookUrl.js';
import { checkEndpointFields, type EndpointDeps } from './createWebhookEndpoint.js';
import { endpointNotFound, findWebhookEndpoint } from './manageWebhookEndpoints.js';
import type { EndpointChange, WebhookEndpointRecord } from './ports.js';
import { privateAddressesAllowed } from './projectSettings.js';
import { sealSecret, secretAad } from './sealSecret.js';
import { waitUntilProducersSee } from './subscribedEventTypes.js';

/** PATCH /v2/webhookEndpoints/{id}: what is absent stays as it is. */
export interface UpdateWebhookEndpointInput {
  projectId: string;
  endpointId: string;
  url?: string;
  /** "" removes basic auth. */
  basicAuthUsername?: string;
  basicAuthPassword?: string;
  /** Empty keeps the list (an endpoint always has at least one type). */
  subscribedEvents: string[];
  /** Empty keeps the headers; removeCustomHeaders removes them. */
  customHeaders: Record<string, string>;
  removeCustomHeaders: boolean;
  /** true re-enables (the failure streak restarts), false disables. */
  enabled?: boolean;
}

/**
 * Checks the change as a create checks its input (the URL against the address rule as it applies
 * to the project now), then writes it in one update of the endpoint's document. The basic auth
 * after the change must still be complete: a user name with a password, or neither.
 */
export async function updateWebhookEndpoint(deps: EndpointDeps, input: UpdateWebhookEndpointInput): Promise<WebhookEndpointRecord> {
  const existing = await findWebhookEndpoint(deps, input.projectId, input.endpointId);
  const headersGiven = Object.keys(input.customHeaders).length > 0;
  const eventsGiven = input.subscribedEvents.length > 0;
  const removingAuth = input.basicAuthUsername === '';
  const newPassword = input.basicAuthPassword ? input.basicAuthPassword : null;
  const username = input.basicAuthUsername ?? existing.basicAuthUsername;
  // A password stays unless basic auth is removed or an empty one is given.
  const hasPassword = newPassword !== null || (!removingAuth && input.basicAuthPassword !== '' && existing.basicAuthPassword !== undefined);
  checkEndpointFields(
    { ...(eventsGiven ? { subscribedEvents: input.subscribedEvents } : {}), ...(input.basicAuthUsername !== undefined ? { basicAuthUsername: input.basicAuthUsername } : {}), customHeaders: input.customHeaders },
    { username, hasPassword },
    headersGiven && input.removeCustomHeaders ? [{ field: 'removeCustomHeaders', message: 'must not be true together with customHeaders' }] : [],
  );
  const url = input.url === undefined ? null : await checkWebhookUrl(input.url, await privateAddressesAllowed(deps, input.projectId), deps.resolveHost);

  const change: EndpointChange = { set: { updatedAt: deps.now() }, unset: [] };
  if (url) change.set.url = url.href;
  if (input.basicAuthUsername !== undefined) change.set.basicAuthUsername = input.basicAuthUsername;
  if (newPassword !== null) change.set.basicAuthPassword = sealSecret(deps.masterKey, secretAad(input.projectId, input.endpointId, 'basic'), newPassword);
  else if (!hasPassword && existing.basicAuthPassword) change.unset.push('basicAuthPassword');
  if (eventsGiven) change.set.subscribedEvents = input.subscribedEvents;
  if (headersGiven) change.set.customHeaders = input.customHeaders;
  else if (input.removeCustomHeaders) change.set.customHeaders = {};
  if (input.enabled === true) {
    // The operator's (or application's) re-enable: deliveries resume, and the day of failures
    // that disables an endpoint is counted from the next failure.
    change.set.enabled = true;
    change.unset.push('disabledReason', 'failingSince');
  } else if (input.enabled === false && existing.enabled) {
    change.set.enabled = false;
    change.set.disabledReason = 'manual';
  }
  if (Object.keys(change.set).length === 1 && change.unset.length === 0) return existing;
  const updated = await deps.endpoints.update(input.projectId, input.endpointId, change);
  // Deleted between the read and the write.
  if (!updated) throw endpointNotFound(input.endpointId);
  // Types this update adds: answered once every producer records them (as for a create).
  const added = eventsGiven ? input.subscribedEvents.filter((t) => !existing.subscribedEvents.includes(t)) : [];
  await waitUntilProducersSee(deps, input.projectId, input.endpointId, added, change.set.updatedAt as Date);
  return updated;
}
