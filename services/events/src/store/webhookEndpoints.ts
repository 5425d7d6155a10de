/** The webhook_endpoints collection (events service); every query is scoped by project. */
import type { Collection, Db } from 'mongodb';
import type { IndexPlan } from '../../../runtime/mongo.js';

/** A secret sealed with AES-256-GCM (domain/sealSecret.ts); base64url fields. */
export interface SealedSecret {
  alg: 'A256GCM';
  iv: string;
  ciphertext: string;
  tag: string;
}

export interface WebhookEndpointRecord {
  _id: string;
  projectId: string;
  url: string;
  basicAuthUsername: string;
  /** Sealed basic-auth password; absent without basic auth. */
  basicAuthPassword?: SealedSecret;
  signingSecret: SealedSecret;
  /** The secret before the last rotation, still valid (deliveries carry both signatures) until previousSecretExpiresAt. */
  previousSigningSecret?: SealedSecret;
  previousSecretExpiresAt?: Date;
  subscribedEvents: string[];
  customHeaders: Record<string, string>;
  enabled: boolean;
  /** Why deliveries stopped: `gone` (answered 410), `failing` (no success for a day) or `manual` (an update disabled it). */
  disabledReason?: 'gone' | 'failing' | 'manual';
  /** The first failure since the last success; cleared by a success. */
  failingSince?: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** What an update writes: fields to set and fields to remove, in one guarded write. */
export interface EndpointChange {
  set: Partial<Pick<WebhookEndpointRecord, 'url' | 'basicAuthUsername' | 'basicAuthPassword' | 'subscribedEvents' | 'customHeaders' | 'enabled' | 'disabledReason'>> & { updatedAt: Date };
  unset: ('basicAuthPassword' | 'disabledReason' | 'failingSince')[];
}

/** A rotation: the new sealed secret and, for an overlap, the current one kept until `previousExpiresAt`. */
export interface SecretRotation {
  /** The `iv` of the secret the caller read: the write happens only if it is still the current one. */
  currentIv: string;
  next: SealedSecret;
  previous: { secret: SealedSecret; expiresAt: Date } | null;
  now: Date;
}

export interface WebhookEndpointStore {
  /** Inserts unless the project already has `max` endpoints; false when it has. */
  insertBelowLimit(record: WebhookEndpointRecord, max: number): Promise<boolean>;
  list(projectId: string): Promise<WebhookEndpointRecord[]>;
  /** The project's enabled endpoints subscribed to any of `types` (one query for a batch's events). */
  listSubscribed(projectId: string, types: string[]): Promise<WebhookEndpointRecord[]>;
  find(projectId: string, endpointId: string): Promise<WebhookEndpointRecord | null>;
  /** The project's endpoints among `endpointIds` (one query; missing ones are absent). */
  findMany(projectId: string, endpointIds: string[]): Promise<WebhookEndpointRecord[]>;
  /** Every type some endpoint of the project subscribes to, enabled or not (distinct over the project_events index). */
  subscribedTypes(projectId: string): Promise<string[]>;
  delete(projectId: string, endpointId: string): Promise<boolean>;
  /** Applies an update; answers the record after it, or null when the endpoint does not exist. */
  update(projectId: string, endpointId: string, change: EndpointChange): Promise<WebhookEndpointRecord | null>;
  /** Replaces the signing secret if it is still the one read; null when it is not (or the endpoint is gone). */
  rotateSigningSecret(projectId: string, endpointId: string, rotation: SecretRotation): Promise<WebhookEndpointRecord | null>;
  /** Removes previous secrets whose overlap ended (any project); answers how many. */
  dropExpiredPreviousSecrets(now: Date): Promise<number>;
  /** Clears failingSince after a success. */
  markSucceeded(projectId: string, endpointId: string, now: Date): Promise<void>;
  /** Sets failingSince unless set; disables when `disableIfFailingBefore` is after it (or `gone`). Answers the updated record. */
  markFailed(projectId: string, endpointId: string, now: Date, disableIfFailingBefore: Date, gone: boolean): Promise<WebhookEndpointRecord | null>;
}


const COUNTER = '_endpointCount';

/**
 * The per-project limit is kept by a counter document (`_id: <projectId>:count` in the same
 * collection) incremented with the limit in its filter: two concurrent creates cannot both pass a
 * count taken before either inserted.
 */
interface CounterDoc {
  _id: string;
  projectId: string;
  [COUNTER]: number;
}

export function mongoWebhookEndpointStore(db: Db): WebhookEndpointStore {
  const coll: Collection<WebhookEndpointRecord> = db.collection('webhook_endpoints');
  const counters: Collection<CounterDoc> = db.collection('webhook_endpoint_counts');
  const counterId = (projectId: string) => `${projectId}:count`;
  return {
    async insertBelowLimit(record, max) {
      try {
        const reserved = await counters.findOneAndUpdate(
          { _id: counterId(record.projectId), projectId: record.projectId, [COUNTER]: { $lt: max } },
          { $inc: { [COUNTER]: 1 } },
          { upsert: true, returnDocument: 'after' },
        );
        if (!reserved) return false;
      } catch (err) {
        // The upsert's insert collides with the full counter document: the limit is reached.
        if ((err as { code?: number }).code === 11000) return false;
        throw err;
      }
      try {
        await coll.insertOne(record);
      } catch (err) {
        await counters.updateOne({ _id: counterId(record.projectId), projectId: record.projectId }, { $inc: { [COUNTER]: -1 } });
        throw err;
      }
      return true;
    },
    list: (projectId) => coll.find({ projectId }).sort({ createdAt: 1, _id: 1 }).toArray(),
    listSubscribed: (projectId, types) => coll.find({ projectId, subscribedEvents: { $in: types }, enabled: true }).toArray(),
    find: (projectId, endpointId) => coll.findOne({ _id: endpointId, projectId }),
    findMany: (projectId, endpointIds) => coll.find({ _id: { $in: endpointIds }, projectId }).toArray(),
    subscribedTypes: async (projectId) => (await coll.distinct('subscribedEvents', { projectId })) as string[],
    async delete(projectId, endpointId) {
      const deleted = await coll.findOneAndDelete({ _id: endpointId, projectId });
      if (!deleted) return false;
      await counters.updateOne({ _id: counterId(projectId), projectId, [COUNTER]: { $gt: 0 } }, { $inc: { [COUNTER]: -1 } });
      return true;
    },
    update(projectId, endpointId, change) {
      const unset = Object.fromEntries(change.unset.map((f) => [f, '' as const]));
      return coll.findOneAndUpdate({ _id: endpointId, projectId }, { $set: change.set, ...(change.unset.length ? { $unset: unset } : {}) }, { returnDocument: 'after' });
    },
    rotateSigningSecret(projectId, endpointId, r) {
      // Guarded by the current secret's IV: of two concurrent rotations one writes, and neither
      // keeps a "previous" secret the other already replaced.
      const keep = r.previous ? { previousSigningSecret: r.previous.secret, previousSecretExpiresAt: r.previous.expiresAt } : {};
      return coll.findOneAndUpdate(
        { _id: endpointId, projectId, 'signingSecret.iv': r.currentIv },
        { $set: { signingSecret: r.next, updatedAt: r.now, ...keep }, ...(r.previous ? {} : { $unset: { previousSigningSecret: '', previousSecretExpiresAt: '' } }) },
        { returnDocument: 'after' },
      );
    },
    async dropExpiredPreviousSecrets(now) {
      const result = await coll.updateMany({ previousSecretExpiresAt: { $lte: now } }, { $unset: { previousSigningSecret: '', previousSecretExpiresAt: '' } });
      return result.modifiedCount;
    },
    async markSucceeded(projectId, endpointId, now) {
      await coll.updateOne({ _id: endpointId, projectId, failingSince: { $exists: true } }, { $unset: { failingSince: '' }, $set: { updatedAt: now } });
    },
    async markFailed(projectId, endpointId, now, disableIfFailingBefore, gone) {
      if (gone) {
        return coll.findOneAndUpdate({ _id: endpointId, projectId }, { $set: { enabled: false, disabledReason: 'gone', updatedAt: now } }, { returnDocument: 'after' });
      }
      // Two guarded steps, each one atomic: start the failing period if none runs, then disable
      // if it started before the cut-off (an endpoint that failed for a day).
      await coll.updateOne({ _id: endpointId, projectId, failingSince: { $exists: false } }, { $set: { failingSince: now } });
      const disabled = await coll.findOneAndUpdate(
        { _id: endpointId, projectId, enabled: true, failingSince: { $lt: disableIfFailingBefore } },
        { $set: { enabled: false, disabledReason: 'failing', updatedAt: now } },
        { returnDocument: 'after' },
      );
      return disabled ?? coll.findOne({ _id: endpointId, projectId });
    },
  };
}

export const webhookEndpointIndexes: IndexPlan = {
  webhook_endpoints: [
    { key: { projectId: 1, subscribedEvents: 1 }, name: 'project_events' },
    // The sweep that drops previous signing secrets after their overlap.
    { key: { previousSecretExpiresAt: 1 }, name: 'previous_secret_expiry' },
  ],
  webhook_endpoint_counts: [],
};
