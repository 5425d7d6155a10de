/**
 * The `project` CLI's command table is the one list of commands: the names, the usage text and the
 * parser must all come from it, so a command added to the table cannot be missing from the help or
 * be unreachable, and the help cannot name an option the parser refuses.
 */
import { describe, expect, it } from 'vitest';
import { PROJECT_COMMAND_TABLE } from '../src/cli/commands/index.js';
import { parseProjectCommand, PROJECT_COMMANDS, USAGE, UsageError } from '../src/cli/projectAdmin.js';

describe('project command table', () => {
  it('names every command once, in PROJECT_COMMANDS and in the usage text, in table order', () => {
    const names = PROJECT_COMMAND_TABLE.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...PROJECT_COMMANDS]).toEqual(names);
    let from = 0;
    for (const command of PROJECT_COMMAND_TABLE) {
      expect(command.usage.startsWith(`  ${command.name}`)).toBe(true);
      const at = USAGE.indexOf(`\n${command.usage}\n`, from);
      expect(at, `${command.name} in USAGE`).toBeGreaterThanOrEqual(from);
      from = at + command.usage.length;
    }
  });

  it.each(PROJECT_COMMAND_TABLE.map((c) => [c.name, c] as const))('%s: its usage names exactly the options it accepts', (_name, command) => {
    const documented = new Set([...command.usage.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]));
    expect(documented).toEqual(new Set(Object.keys(command.options)));
  });

  it.each([...PROJECT_COMMANDS])('%s is reached through the table and refuses options it does not declare', (name) => {
    expect(() => parseProjectCommand([name, '--no-such-option'])).toThrow(UsageError);
    expect(() => parseProjectCommand([name, '--no-such-option'])).toThrow("Unknown option '--no-such-option'");
  });

  it('refuses a missing or unknown command, listing the table', () => {
    expect(() => parseProjectCommand([])).toThrow(new UsageError('a command is required'));
    expect(() => parseProjectCommand(['frobnicate'])).toThrow(`unknown command "frobnicate"; expected one of ${PROJECT_COMMANDS.join(', ')}`);
  });
});
