import { failedPrecondition, invalidArgument } from '../../../runtime/errors.js';
import { newId } from '../../../runtime/ids.js';
import { checkWebhookUrl } from './checkWebhookUrl.js';
import { isEventType, EVENT_TYPES } from './eventTypes.js';
import type { HostResolver, WebhookEndpointRecord, WebhookEndpointStore, WebhookProjectSettingsStore } from './ports.js';
import { privateAddressesAllowed } from './projectSettings.js';
import { newSigningSecret, sealSecret, secretAad } from './sealSecret.js';
import { waitUntilProducersSee, type SubscriptionDeps } from './subscribedEventTypes.js';

/** At most this many endpoints per project: each event is posted to every subscribed one. */
export const MAX_ENDPOINTS_PER_PROJECT = 10;

export interface EndpointDeps extends SubscriptionDeps {
  endpoints: WebhookEndpointStore;
  masterKey: Buffer;
  /** WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true under `npm start` and the tests only. */
  allowPrivateAddresses: boolean;
  /** Per-project settings (an operator's private-address allowance). */
  settings: WebhookProjectSettingsStore;
  resolveHost: HostResolver;
  now: () => Date;
}

export interface CreateWebhookEndpointInput {
  projectId: string;
  url: string;
  basicAuthUsername: string;
  basicAuthPassword: string;
  subscribedEvents: string[];
  customHeaders: Record<string, string>;
}

// RFC 9110 token characters; headers the delivery sets itself may not be replaced.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const RESERVED_HEADERS = new Set(['authorization', 'content-type', 'content-length', 'host', 'x-corbado-webhook-event', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'transfer-encoding', 'connection']);

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** The fields create and update check alike; an update passes only those it changes. */
export interface EndpointFields {
  subscribedEvents?: string[];
  basicAuthUsername?: string;
  customHeaders?: Record<string, string>;
}

/**
 * Checks the fields and the basic auth as it will be after the write (`username` and whether a
 * password goes with it): both or neither. Throws one 400 naming every field that is wrong.
 */
export function checkEndpointFields(input: EndpointFields, basicAuth: { username: string; hasPassword: boolean }, more: { field: string; message: string }[] = []): void {
  const problems = [...more];
  input.subscribedEvents?.forEach((t, i) => {
    if (!isEventType(t)) problems.push({ field: `subscribedEvents[${i}]`, message: `must be one of ${EVENT_TYPES.join(', ')}` });
  });
  if (input.subscribedEvents && new Set(input.subscribedEvents).size !== input.subscribedEvents.length) problems.push({ field: 'subscribedEvents', message: 'must not repeat an event type' });
  if (Boolean(basicAuth.username) !== basicAuth.hasPassword) {
    problems.push({ field: basicAuth.username ? 'basicAuthPassword' : 'basicAuthUsername', message: 'basic auth needs both a user name and a password' });
  }
  if (input.basicAuthUsername?.includes(':')) problems.push({ field: 'basicAuthUsername', message: 'must not contain ":"' });
  for (const [name, value] of Object.entries(input.customHeaders ?? {})) {
    if (!HEADER_NAME.test(name) || RESERVED_HEADERS.has(name.toLowerCase())) problems.push({ field: `customHeaders.${name}`, message: 'must be a header name the delivery does not set itself' });
    // No control characters: a header value cannot smuggle a second header or line.
    else if (value.length > 1024 || hasControlCharacter(value)) problems.push({ field: `customHeaders.${name}`, message: 'must be at most 1024 printable characters' });
  }
  const first = problems[0];
  if (first) throw invalidArgument('validation_error', `${first.field} ${first.message}`, problems);
}

/**
 * Creates an endpoint; answers the record and the signing secret, which is never shown again.
 * Answers only once every producer sees its types (waitUntilProducersSee), so each change
 * acknowledged after this answer produces its event.
 */
export async function createWebhookEndpoint(deps: EndpointDeps, input: CreateWebhookEndpointInput): Promise<{ record: WebhookEndpointRecord; signingSecret: string }> {
  checkEndpointFields(input, { username: input.basicAuthUsername, hasPassword: Boolean(input.basicAuthPassword) });
  const url = await checkWebhookUrl(input.url, await privateAddressesAllowed(deps, input.projectId), deps.resolveHost);
  const id = newId('whe');
  const signingSecret = newSigningSecret();
  const now = deps.now();
  const record: WebhookEndpointRecord = {
    _id: id,
    projectId: input.projectId,
    url: url.href,
    basicAuthUsername: input.basicAuthUsername,
    ...(input.basicAuthPassword ? { basicAuthPassword: sealSecret(deps.masterKey, secretAad(input.projectId, id, 'basic'), input.basicAuthPassword) } : {}),
    signingSecret: sealSecret(deps.masterKey, secretAad(input.projectId, id, 'signing'), signingSecret),
    subscribedEvents: input.subscribedEvents,
    customHeaders: input.customHeaders,
    enabled: true,
    createdAt: now,
    updatedAt: now,
  };
  if (!(await deps.endpoints.insertBelowLimit(record, MAX_ENDPOINTS_PER_PROJECT))) {
    throw failedPrecondition('webhook_endpoint_limit_reached', `a project has at most ${MAX_ENDPOINTS_PER_PROJECT} webhook endpoints; delete one first`);
  }
  await waitUntilProducersSee(deps, input.projectId, id, input.subscribedEvents, now);
  return { record, signingSecret };
}
