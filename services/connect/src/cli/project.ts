/**
 * `npm run --silent project -- <command>`: manage projects from the shell. Stdout carries exactly
 * one JSON document (so `$(npm run --silent project -- create …)` parses); everything else goes
 * to stderr. Exit codes: 0 done, 2 bad arguments (or a value the domain rejects), 1 anything else.
 */
import { DomainError } from '../../../runtime/errors.js';
import { AdminConfigError, openProjectAdmin, parseProjectCommand, projectAdminConfigFromEnv, USAGE, UsageError } from './projectAdmin.js';

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let admin: Awaited<ReturnType<typeof openProjectAdmin>> | undefined;
  try {
    const command = parseProjectCommand(argv);
    admin = await openProjectAdmin(projectAdminConfigFromEnv());
    const result = await command.run(admin.deps);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof DomainError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 2;
    }
    if (err instanceof AdminConfigError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`error: ${(err as Error).message ?? String(err)}\n`);
    return 1;
  } finally {
    await admin?.close().catch(() => undefined);
  }
}

process.exitCode = await main(process.argv.slice(2));
