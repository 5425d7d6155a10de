/**
 * The operator's `webhooks` CLI commands (webhooks.ts runs them): per-project webhook settings that
 * a project's own API secret must not change. Parsing is apart from running so both are tested
 * without a process.
 */
import { parseArgs } from 'node:util';
import { describeSettings, projectWebhookSettings, type ProjectWebhookSettings } from '../domain/projectSettings.js';
import type { WebhookProjectSettingsStore } from '../domain/ports.js';

export const USAGE = `usage: npm run --silent webhooks -- <command>

  settings --project pro-… [--private-addresses allowed|refused]
      whether this project's webhooks may reach loopback, private and link-local addresses
      (refused by default; checked when an endpoint is created or updated and at every delivery
      attempt); without --private-addresses it only shows the setting;
      prints {projectID, privateAddresses, updated}
  settings
      every project that has a setting; prints {projects: [...]}

Environment: MONGODB_URI (default mongodb://127.0.0.1:27017/passkeyauth).`;

/** Bad arguments: exit 2 with the usage. */
export class UsageError extends Error {}

export type WebhooksCommand = { kind: 'show-all' } | { kind: 'settings'; projectId: string; allowPrivateAddresses?: boolean };

export function parseWebhooksCommand(argv: string[]): WebhooksCommand {
  const [name, ...rest] = argv;
  if (name !== 'settings') throw new UsageError(name ? `unknown command "${name}"` : 'a command is needed');
  let values: { project?: string; 'private-addresses'?: string };
  try {
    ({ values } = parseArgs({ args: rest, options: { project: { type: 'string' }, 'private-addresses': { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const setting = values['private-addresses'];
  if (setting !== undefined && setting !== 'allowed' && setting !== 'refused') throw new UsageError(`--private-addresses must be "allowed" or "refused", got "${setting}"`);
  if (values.project === undefined) {
    if (setting !== undefined) throw new UsageError('--private-addresses needs --project');
    return { kind: 'show-all' };
  }
  // Checked before the store is touched (the domain checks again).
  if (!/^pro-[0-9]{1,30}$/.test(values.project)) throw new UsageError(`--project must be a project ID (pro-<digits>), got "${values.project}"`);
  return { kind: 'settings', projectId: values.project, ...(setting ? { allowPrivateAddresses: setting === 'allowed' } : {}) };
}

export async function runWebhooksCommand(
  deps: { settings: WebhookProjectSettingsStore; now: () => Date },
  command: WebhooksCommand,
): Promise<ProjectWebhookSettings | { projects: ProjectWebhookSettings[] }> {
  if (command.kind === 'show-all') return { projects: (await deps.settings.listAll()).map((r) => describeSettings(r.projectId, r)) };
  return projectWebhookSettings(deps, command.projectId, command.allowPrivateAddresses);
}
