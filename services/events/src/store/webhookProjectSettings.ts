/**
 * The webhook_project_settings collection (events service): per-project webhook settings an
 * operator sets with the `webhooks` CLI, never through the backend API (a project's API secret must
 * not lift its own SSRF guard). One document per project that has a setting; `_id` is the project ID.
 */
import type { Collection, Db } from 'mongodb';
import type { IndexPlan } from '../../../runtime/mongo.js';

export interface WebhookProjectSettingsRecord {
  _id: string;
  projectId: string;
  /** Deliveries of this project may reach loopback, private and link-local addresses. */
  allowPrivateAddresses: boolean;
  updatedAt: Date;
}

export interface WebhookProjectSettingsStore {
  find(projectId: string): Promise<WebhookProjectSettingsRecord | null>;
  /** Sets the allowance (creating the document); answers it as stored. */
  setAllowPrivateAddresses(projectId: string, allow: boolean, now: Date): Promise<WebhookProjectSettingsRecord>;
  /** Every project's settings (a few documents: only projects an operator configured), for the operator's listing. */
  listAll(): Promise<WebhookProjectSettingsRecord[]>;
}

export function mongoWebhookProjectSettingsStore(db: Db): WebhookProjectSettingsStore {
  const coll: Collection<WebhookProjectSettingsRecord> = db.collection('webhook_project_settings');
  return {
    find: (projectId) => coll.findOne({ _id: projectId, projectId }),
    async setAllowPrivateAddresses(projectId, allow, now) {
      const after = await coll.findOneAndUpdate(
        { _id: projectId, projectId },
        { $set: { allowPrivateAddresses: allow, updatedAt: now } },
        { upsert: true, returnDocument: 'after' },
      );
      return after!;
    },
    listAll: () => coll.find({}).sort({ _id: 1 }).limit(10_000).toArray(),
  };
}

/** Looked up by _id only. */
export const webhookProjectSettingsIndexes: IndexPlan = { webhook_project_settings: [] };
