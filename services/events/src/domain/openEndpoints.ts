/**
 * The endpoints of a batch of deliveries, ready to post to: read once per batch (one query per
 * project), so an update, a rotation, a disable or a delete takes effect at the next batch, and
 * each project's private-address allowance read once per batch. What is cached across batches is
 * only the opening of sealed secrets (an HKDF and an AES-GCM open each), keyed by the sealed
 * value's IV: a rotation or a new password has a new IV, so it can never be answered from the
 * cache with the old plaintext.
 */
import type { DeliveryRecord, WebhookEndpointRecord, WebhookEndpointStore, WebhookProjectSettingsStore } from './ports.js';
import { privateAddressesAllowed } from './projectSettings.js';
import { openSecret, secretAad, type SealedSecret } from './sealSecret.js';

/** An endpoint with its secrets opened, for the attempts of one batch. */
export interface OpenedEndpoint {
  record: WebhookEndpointRecord;
  /** The current secret, then the previous one while its rotation overlap runs. */
  signingSecrets: string[];
  basicAuthPassword: string | null;
  allowPrivate: boolean;
}

/** Opened secrets by `<endpointId>:<purpose>:<iv>`; bounded, cleared whole when full (a re-open only costs CPU). */
const opened = new Map<string, string>();
const OPENED_MAX = 2000;

function openCached(masterKey: Buffer, record: WebhookEndpointRecord, purpose: 'signing' | 'basic', sealed: SealedSecret): string {
  const key = `${record._id}:${purpose}:${sealed.iv}`;
  let plain = opened.get(key);
  if (plain === undefined) {
    plain = openSecret(masterKey, secretAad(record.projectId, record._id, purpose), sealed);
    if (opened.size >= OPENED_MAX) opened.clear();
    opened.set(key, plain);
  }
  return plain;
}

/**
 * The batch's endpoints by ID; a deleted one is absent. `now` decides whether a previous signing
 * secret still signs.
 */
export async function openEndpoints(
  deps: { endpoints: WebhookEndpointStore; settings: WebhookProjectSettingsStore; allowPrivateAddresses: boolean; masterKey: Buffer },
  batch: Pick<DeliveryRecord, 'projectId' | 'endpointId'>[],
  now: Date,
): Promise<Map<string, OpenedEndpoint>> {
  const byProject = new Map<string, Set<string>>();
  for (const d of batch) byProject.set(d.projectId, (byProject.get(d.projectId) ?? new Set()).add(d.endpointId));
  const result = new Map<string, OpenedEndpoint>();
  await Promise.all(
    [...byProject].map(async ([projectId, ids]) => {
      const [records, allowPrivate] = await Promise.all([deps.endpoints.findMany(projectId, [...ids]), privateAddressesAllowed(deps, projectId)]);
      for (const record of records) {
        if (!record.enabled) {
          result.set(record._id, { record, signingSecrets: [], basicAuthPassword: null, allowPrivate });
          continue;
        }
        const signingSecrets = [openCached(deps.masterKey, record, 'signing', record.signingSecret)];
        // The previous secret signs too while its overlap runs; after it, it is ignored (and swept).
        if (record.previousSigningSecret && record.previousSecretExpiresAt && record.previousSecretExpiresAt > now) {
          signingSecrets.push(openCached(deps.masterKey, record, 'signing', record.previousSigningSecret));
        }
        const basicAuthPassword = record.basicAuthPassword ? openCached(deps.masterKey, record, 'basic', record.basicAuthPassword) : null;
        result.set(record._id, { record, signingSecrets, basicAuthPassword, allowPrivate });
      }
    }),
  );
  return result;
}
