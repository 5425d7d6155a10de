/**
 * The container image's entry point: `node dist/deploy/container/entrypoint.js <process>` starts
 * one process of the stack (the image's CMD names it; a Deployment overrides it with `args`).
 * Each process's main module configures itself from the environment when imported.
 */
const MAINS = {
  gateway: '../../gateway/src/main.js',
  ceremony: '../../services/ceremony/src/main.js',
  challenge: '../../services/challenge/src/main.js',
  connect: '../../services/connect/src/main.js',
  events: '../../services/events/src/main.js',
} as const;

function mainModuleOf(name: string | undefined): string | undefined {
  return name !== undefined && Object.hasOwn(MAINS, name) ? MAINS[name as keyof typeof MAINS] : undefined;
}

const [name, ...extra] = process.argv.slice(2);
const main = mainModuleOf(name);
if (!main || extra.length) {
  process.stderr.write(
    `usage: entrypoint <${Object.keys(MAINS).join('|')}>\n` +
      (name === undefined ? 'no process named\n' : !main ? `unknown process "${name}"\n` : `unexpected arguments: ${extra.join(' ')}\n`),
  );
  process.exit(2);
}
await import(main);
