/** What the events domain needs from the outside: its two stores, name resolution and HTTP. */
import type { SealedSecret } from './sealSecret.js';

export interface WebhookEndpointRecord {
  _id: string;
  projectId: string;
  url: string;
  basicAuthUsername: string;
  /** Sealed basic-auth password; absent without basic auth. */
  basicAuthPassword?: SealedSecret;
  signingSecret: SealedSecret;
  subscribedEvents: string[];
  customHeaders: Record<string, string>;
  enabled: boolean;
  /** Why deliveries stopped: `gone` (answered 410) or `failing` (no success for a day). */
  disabledReason?: 'gone' | 'failing';
  /** The first failure since the last success; cleared by a success. */
  failingSince?: Date;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookEndpointStore {
  /** Inserts unless the project already has `max` endpoints; false when it has. */
  insertBelowLimit(record: WebhookEndpointRecord, max: number): Promise<boolean>;
  list(projectId: string): Promise<WebhookEndpointRecord[]>;
  /** The project's enabled endpoints subscribed to `type`. */
  listSubscribed(projectId: string, type: string): Promise<WebhookEndpointRecord[]>;
  find(projectId: string, endpointId: string): Promise<WebhookEndpointRecord | null>;
  delete(projectId: string, endpointId: string): Promise<boolean>;
  /** Clears failingSince after a success. */
  markSucceeded(projectId: string, endpointId: string, now: Date): Promise<void>;
  /** Sets failingSince unless set; disables when `disableIfFailingBefore` is after it (or `gone`). Answers the updated record. */
  markFailed(projectId: string, endpointId: string, now: Date, disableIfFailingBefore: Date, gone: boolean): Promise<WebhookEndpointRecord | null>;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryAttempt {
  at: Date;
  /** HTTP status, 0 when no answer came. */
  status: number;
  durationMs: number;
  error?: string;
}

export interface DeliveryRecord {
  /** `<eventId>:<endpointId>`: publishing an event twice finds the same delivery. */
  _id: string;
  projectId: string;
  endpointId: string;
  eventId: string;
  type: string;
  /** The JSON body, fixed when the event was published (re-signed per attempt). */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  leaseOwner?: string;
  leaseUntil?: Date;
  /** The last attempts (bounded), newest last. */
  log: DeliveryAttempt[];
  createdAt: Date;
  finishedAt?: Date;
}

export interface DeliveryStore {
  /** Inserts each delivery unless one with its ID exists; answers how many were new. */
  insertNew(records: DeliveryRecord[]): Promise<number>;
  /** Leases the pending delivery due first (nextAttemptAt ≤ now, lease expired) to `owner`. */
  claimDue(now: Date, owner: string, leaseUntil: Date): Promise<DeliveryRecord | null>;
  /** Records an attempt under the lease (filter: owner and attempts unchanged); false when the lease was lost. */
  recordAttempt(
    record: Pick<DeliveryRecord, '_id' | 'projectId' | 'attempts'>,
    owner: string,
    attempt: DeliveryAttempt,
    outcome: { status: DeliveryStatus; nextAttemptAt?: Date; finishedAt?: Date },
  ): Promise<boolean>;
  /** Fails the pending deliveries of a deleted endpoint. */
  failForEndpoint(projectId: string, endpointId: string, now: Date): Promise<number>;
}

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
