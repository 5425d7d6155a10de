/**
 * Per-project webhook settings. Today one: whether a project's deliveries may reach loopback,
 * private and link-local addresses in the production configuration (a receiver inside the
 * operator's own network). Only an operator sets it (the `webhooks` CLI): a setting the project's
 * API secret could change would let any tenant lift the SSRF guard for itself.
 */
import { invalidArgument } from '../../../runtime/errors.js';
import type { WebhookProjectSettingsRecord, WebhookProjectSettingsStore } from './ports.js';

export interface AddressAllowanceDeps {
  /** WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true lifts the rule for every project (npm start, the tests). */
  allowPrivateAddresses: boolean;
  settings: WebhookProjectSettingsStore;
}

/** Whether this project's webhooks may reach private addresses: read at every check (for the worker: every batch of attempts), so revoking the allowance takes effect at the next one. */
export async function privateAddressesAllowed(deps: AddressAllowanceDeps, projectId: string): Promise<boolean> {
  if (deps.allowPrivateAddresses) return true;
  return (await deps.settings.find(projectId))?.allowPrivateAddresses === true;
}

/** The operator's view of a project's settings. */
export interface ProjectWebhookSettings {
  projectID: string;
  privateAddresses: 'allowed' | 'refused';
  updated: string | null;
}

export function describeSettings(projectId: string, record: WebhookProjectSettingsRecord | null): ProjectWebhookSettings {
  return { projectID: projectId, privateAddresses: record?.allowPrivateAddresses ? 'allowed' : 'refused', updated: record ? record.updatedAt.toISOString() : null };
}

const PROJECT_ID = /^pro-[0-9]{1,30}$/;

/** Sets (or, with `allow` undefined, reads) a project's private-address allowance. */
export async function projectWebhookSettings(deps: { settings: WebhookProjectSettingsStore; now: () => Date }, projectId: string, allow?: boolean): Promise<ProjectWebhookSettings> {
  if (!PROJECT_ID.test(projectId)) throw invalidArgument('validation_error', `project must look like "pro-<digits>", got "${projectId}"`, [{ field: 'project', message: 'must be a project ID' }]);
  const record = allow === undefined ? await deps.settings.find(projectId) : await deps.settings.setAllowPrivateAddresses(projectId, allow, deps.now());
  return describeSettings(projectId, record);
}
