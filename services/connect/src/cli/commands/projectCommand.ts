import type { parseArgs, ParseArgsConfig } from 'node:util';
import type { ProjectDeps } from '../../projects/domain/projectDeps.js';

/** A command line that cannot be run as given; the CLI prints the message and exits with 2. */
export class UsageError extends Error {}

/** A command's options, as node:util parseArgs takes them. */
export type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** The option values node:util parseArgs returns for these options (strict, no positionals). */
export type OptionValuesOf<O extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: false }>>['values'];

/**
 * One `project` command: its name, its paragraph of the usage text, its options (a node:util parseArgs
 * config), `parse`, which checks the option values and throws UsageError before the store is touched,
 * and `run`, which does the work and returns what the CLI prints as JSON.
 */
export interface ProjectCommandSpec<Name extends string = string, O extends ParseArgsOptionsConfig = ParseArgsOptionsConfig, Input = unknown, Result = unknown> {
  name: Name;
  /** Its paragraph of USAGE, indented as printed: `  name options…` then its description. */
  usage: string;
  options: O;
  parse(values: OptionValuesOf<O>): Input;
  run(deps: ProjectDeps, input: Input): Promise<Result>;
}

/** Keeps the literal name and the options' exact shape, so `parse` sees typed values. */
export function defineProjectCommand<const Name extends string, const O extends ParseArgsOptionsConfig, Input, Result>(
  spec: ProjectCommandSpec<Name, O, Input, Result>,
): ProjectCommandSpec<Name, O, Input, Result> {
  return spec;
}
