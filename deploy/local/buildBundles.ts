/**
 * Compiles every local process (`npm start`, the end-to-end tests) into one JavaScript bundle in
 * .local/build/, so a process starts with plain `node` instead of compiling TypeScript through
 * tsx on every start and restart. Bundles are rebuilt only when a file they were built from
 * changed: .local/build/manifest.json records a hash over those files' contents.
 *
 * Safe to run from several processes at once (parallel test workers, `npm start` beside the
 * tests): each writes its files under a temporary name and renames them into place, so a reader
 * never sees a half-written bundle, and the manifest, renamed last, never names a bundle older
 * than itself.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A workspace package's entry, found through its name (npm links the package into node_modules). */
const packageEntry = (specifier: string): string => createRequire(import.meta.url).resolve(specifier);

/** The entry module of each bundle, by bundle name. */
export const BUNDLE_ENTRIES = {
  mongo: packageEntry('@passkeyauth/embedded-mongo/cli'),
  connect: 'services/connect/src/main.ts',
  challenge: 'services/challenge/src/main.ts',
  ceremony: 'services/ceremony/src/main.ts',
  events: 'services/events/src/main.ts',
  gateway: 'gateway/src/main.ts',
  demo: packageEntry('@passkeyauth/demo/main'),
  project: 'services/connect/src/cli/project.ts',
  'tls-front': 'deploy/local/tls/main.ts',
} as const;

export type BundleName = keyof typeof BUNDLE_ENTRIES;

export const BUNDLE_DIR = join(REPO_ROOT, '.local', 'build');
const MANIFEST = join(BUNDLE_DIR, 'manifest.json');

interface Manifest {
  /** Hash over the build settings and the contents of every input. */
  hash: string;
  /** Files the bundles were built from, relative to the repository root. */
  inputs: string[];
}

/** The bundle of a process; run it with `node --enable-source-maps` so stack traces name the TypeScript sources. */
export function bundlePath(name: BundleName): string {
  return join(BUNDLE_DIR, `${name}.js`);
}

/** Node arguments that run a bundle with its source maps. */
export function bundleArgs(name: BundleName, args: string[] = []): string[] {
  return ['--enable-source-maps', bundlePath(name), ...args];
}

/** Builds the bundles unless they are current; says whether it built. */
export async function buildBundles(): Promise<{ built: boolean }> {
  if (await isCurrent()) return { built: false };
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: BUNDLE_ENTRIES,
    outdir: BUNDLE_DIR,
    bundle: true,
    // Dependencies stay in node_modules: bundling them would make each build slow and change
    // what runs (packages that read their own files or rely on being loaded once).
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [sourceImportMetaUrl],
  });
  mkdirSync(BUNDLE_DIR, { recursive: true });
  for (const file of result.outputFiles) replaceFile(file.path, file.contents);
  const inputs = Object.keys(result.metafile.inputs).sort();
  const manifest: Manifest = { hash: await hashInputs(inputs), inputs };
  replaceFile(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  return { built: true };
}

async function isCurrent(): Promise<boolean> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Manifest;
  } catch {
    return false;
  }
  if (!Object.keys(BUNDLE_ENTRIES).every((name) => existsSync(bundlePath(name as BundleName)))) return false;
  if (!manifest.inputs.every((input) => existsSync(join(REPO_ROOT, input)))) return false;
  return manifest.hash === (await hashInputs(manifest.inputs));
}

/** Contents of the inputs and of this file (the build settings), so changing either rebuilds. */
async function hashInputs(inputs: string[]): Promise<string> {
  const hash = createHash('sha256');
  const files = [fileURLToPath(import.meta.url), ...inputs.map((input) => join(REPO_ROOT, input))];
  const contents = await Promise.all(files.map((file) => readFile(file)));
  files.forEach((file, i) => hash.update(`${file}\0${contents[i].length}\0`).update(contents[i]));
  return hash.digest('hex');
}

/** Writes under a name of this process, then renames: readers see the old file or the whole new one. */
function replaceFile(path: string, contents: string | Uint8Array): void {
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temp, contents);
  renameSync(temp, path);
}

/**
 * Replaces `import.meta.url` with the URL of the source file, so code that finds files next to
 * its source (the demo's pages, the gateway's gen/ modules, package lookups with createRequire)
 * finds them from the bundle as it does under tsx, instead of looking inside .local/build/.
 */
const sourceImportMetaUrl: Plugin = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)), loader: 'ts' };
    });
  },
};
