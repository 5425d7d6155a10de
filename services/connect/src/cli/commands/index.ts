/**
 * The `project` commands, one file each; this table is the only list of them: the parser, the
 * command names (PROJECT_COMMANDS) and the usage text are built from it. A new command is a new
 * file and one line here.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_PROJECT_URLS, type ProjectDeps } from '../../projects/domain/projectDeps.js';
import { DEFAULT_MONGODB_URI, MASTER_KEY_FILE } from '../projectAdminConfig.js';
import { addOriginCommand } from './addOriginCommand.js';
import { createProjectCommand } from './createProjectCommand.js';
import { issueInvitationCommand } from './issueInvitationCommand.js';
import { listProjectsCommand } from './listProjectsCommand.js';
import { UsageError, type OptionValuesOf, type ParseArgsOptionsConfig, type ProjectCommandSpec } from './projectCommand.js';
import { rotateSecretCommand } from './rotateSecretCommand.js';
import { rotateSigningKeyCommand } from './rotateSigningKeyCommand.js';
import { updateConnectSettingsCommand } from './updateConnectSettingsCommand.js';
import { updateCookieSettingsCommand } from './updateCookieSettingsCommand.js';
import { updateEventSettingsCommand } from './updateEventSettingsCommand.js';
import { updatePasskeySettingsCommand } from './updatePasskeySettingsCommand.js';
import { updateSelfServiceSettingsCommand } from './updateSelfServiceSettingsCommand.js';
import { updateSessionSettingsCommand } from './updateSessionSettingsCommand.js';

/** In the order the usage text lists them. */
const COMMAND_TABLE = [
  createProjectCommand,
  listProjectsCommand,
  rotateSecretCommand,
  addOriginCommand,
  updateConnectSettingsCommand,
  issueInvitationCommand,
  updateSessionSettingsCommand,
  updateCookieSettingsCommand,
  updateEventSettingsCommand,
  updatePasskeySettingsCommand,
  updateSelfServiceSettingsCommand,
  rotateSigningKeyCommand,
] as const;

export type ProjectCommand = (typeof COMMAND_TABLE)[number]['name'];
/** What any command prints: the union of every command's result. */
export type ProjectCommandResult = Awaited<ReturnType<(typeof COMMAND_TABLE)[number]['run']>>;

/** The table with each command's own input type forgotten: `parse` and `run` of one entry are only ever used together. */
export const PROJECT_COMMAND_TABLE: readonly ProjectCommandSpec<ProjectCommand, ParseArgsOptionsConfig, unknown, ProjectCommandResult>[] = COMMAND_TABLE;

export const PROJECT_COMMANDS: readonly ProjectCommand[] = PROJECT_COMMAND_TABLE.map((c) => c.name);

export const USAGE = `usage: npm run --silent project -- <command> [options]

commands:
${PROJECT_COMMAND_TABLE.map((c) => c.usage).join('\n')}

environment: MONGODB_URI (default ${DEFAULT_MONGODB_URI}), MASTER_KEY (else ${MASTER_KEY_FILE}),
             FRONTEND_API_URL (default ${DEFAULT_PROJECT_URLS.frontendApiUrl}, may contain {projectID}),
             BACKEND_API_URL (default ${DEFAULT_PROJECT_URLS.backendApiUrl})`;

/** A parsed command line: which command and its options, checked before the store is touched. */
export interface ParsedCommand {
  command: ProjectCommand;
  run(deps: ProjectDeps): Promise<ProjectCommandResult>;
}

/** Parses argv (without node and script) into a runnable command; UsageError if it is malformed. */
export function parseProjectCommand(argv: readonly string[]): ParsedCommand {
  const [name, ...args] = argv;
  if (name === undefined) throw new UsageError('a command is required');
  const command = PROJECT_COMMAND_TABLE.find((c) => c.name === name);
  if (!command) throw new UsageError(`unknown command "${name}"; expected one of ${PROJECT_COMMANDS.join(', ')}`);
  const input = command.parse(parseOptions(args, command.options));
  return { command: command.name, run: (deps) => command.run(deps, input) };
}

function parseOptions<O extends ParseArgsOptionsConfig>(args: string[], options: O): OptionValuesOf<O> {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
