/**
 * `npm run --silent webhooks -- <command>`: the operator's per-project webhook settings, written
 * to the events service's own collection (it owns endpoints and deliveries and reads the setting at
 * every attempt). In a cluster: `kubectl exec deploy/events -- /nodejs/bin/node
 * dist/services/events/src/cli/webhooks.js settings …`. Stdout carries exactly one JSON document;
 * exit codes: 0 done, 2 bad arguments, 1 anything else.
 */
import { DomainError } from '../../../runtime/errors.js';
import { connectStore, databaseNameOf } from '../../../runtime/mongo.js';
import { mongoWebhookProjectSettingsStore, webhookProjectSettingsIndexes } from '../store/webhookProjectSettings.js';
import { parseWebhooksCommand, runWebhooksCommand, USAGE, UsageError } from './webhooksCommand.js';

const DEFAULT_MONGODB_URI = 'mongodb://127.0.0.1:27017/passkeyauth';

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let store: Awaited<ReturnType<typeof connectStore>> | undefined;
  try {
    const command = parseWebhooksCommand(argv);
    const uri = process.env.MONGODB_URI || DEFAULT_MONGODB_URI;
    store = await connectStore(uri, databaseNameOf(uri), webhookProjectSettingsIndexes);
    const result = await runWebhooksCommand({ settings: mongoWebhookProjectSettingsStore(store.db), now: () => new Date() }, command);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`error: ${(err as Error).message ?? String(err)}\n`);
    return err instanceof DomainError ? 2 : 1;
  } finally {
    await store?.close().catch(() => undefined);
  }
}

process.exitCode = await main(process.argv.slice(2));
