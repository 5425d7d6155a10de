/** What the events domain needs from the outside: its stores (types owned by the store modules), name resolution and HTTP. */
export type { EndpointChange, SealedSecret, SecretRotation, WebhookEndpointRecord, WebhookEndpointStore } from '../store/webhookEndpoints.js';
export type { AttemptOutcome, DeliveryAttempt, DeliveryListQuery, DeliveryRecord, DeliveryStatus, DeliveryStore } from '../store/webhookDeliveries.js';
export type { WebhookProjectSettingsRecord, WebhookProjectSettingsStore } from '../store/webhookProjectSettings.js';

/** One HTTP attempt's result. */
export interface PostResult {
  status: number;
  error?: string;
}

/**
 * Posts a delivery. Resolves the host and, unless private addresses are allowed, refuses to
 * connect to any address that is not public (error `address_not_allowed`).
 */
export type WebhookPoster = (url: string, headers: Record<string, string>, body: string, allowPrivate: boolean) => Promise<PostResult>;

/** The addresses a host name resolves to (an IP literal resolves to itself). */
export type HostResolver = (host: string) => Promise<string[]>;
