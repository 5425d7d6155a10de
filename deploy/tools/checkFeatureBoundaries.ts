/**
 * `npm run lint` (after ESLint): keeps the connect service's feature folders modules.
 *
 * Each feature (a folder of services/connect/src with domain/, handlers/ or store/) exposes what
 * other features may use through its index.ts; everything else in it (domain/, store/, handlers/)
 * is its own. server.ts (which composes the features) and cli/ (a separate program) may reach in. The
 * shared kernel (shared/) and the adapters (clients/) serve every feature, so they import none.
 * This check follows every import and re-export (type-only too: a type import ties two modules
 * together as much as a value import does) of the connect sources and fails on:
 * - an import of another feature's file other than its index.ts (its domain/, store/ or handlers/);
 * - a shared/ or clients/ file that imports a feature;
 * - a cycle in the feature-level graph (A imports B and B, directly or not, imports A).
 * It also counts the connect files of 20 lines or fewer (a one-line helper used once belongs in the
 * function it serves; the index.ts entry points are not counted) and fails when the count passes
 * SMALL_FILE_CEILING, so it only goes down.
 *
 * Usage: tsx deploy/tools/checkFeatureBoundaries.ts [--report] [--src=DIR]
 *   --report: print the numbers, never fail; --src: another source tree (default services/connect/src)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const SRC = resolve(process.argv.find((a) => a.startsWith('--src='))?.slice('--src='.length) ?? 'services/connect/src');
const LAYERS = ['domain', 'store', 'handlers'];
/** The shared kernel: layered like a feature, but every feature may import it and it imports none. */
const KERNEL = 'shared';
/** Files of ≤ 20 lines allowed before the check fails (was 79 of 219 before #30); lower it as helpers fold into their callers. */
const SMALL_FILE_CEILING = 38;
const SMALL = 20;
const reportOnly = process.argv.includes('--report');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const features = readdirSync(SRC)
  .filter((name) => name !== KERNEL && statSync(join(SRC, name)).isDirectory() && LAYERS.some((layer) => existsSync(join(SRC, name, layer))))
  .sort();
const files = sourceFiles(SRC);
const known = new Set(files);

/** The file a relative specifier names ('./x.js' is written for './x.ts' under NodeNext), or null. */
function resolveSpecifier(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  return [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')].find((c) => known.has(c)) ?? null;
}

/** [top folder, second part] of a connect source path: ['me', 'domain'], ['shared', 'limits.ts'], ['server.ts']. */
const partsOf = (file: string) => relative(SRC, file).split(sep);
const featureOf = (file: string): string | null => (features.includes(partsOf(file)[0]) ? partsOf(file)[0] : null);
const name = (file: string) => relative(process.cwd(), file);

const reachIns: string[] = [];
const kernelImports: string[] = [];
const graph = new Map<string, Set<string>>(features.map((f) => [f, new Set<string>()]));
for (const file of files) {
  const from = featureOf(file);
  const top = partsOf(file)[0];
  const specifiers = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((f) => f.fileName);
  for (const specifier of specifiers) {
    const target = resolveSpecifier(file, specifier);
    if (!target) continue;
    const to = featureOf(target);
    if (!to || to === from) continue;
    if (top === 'shared' || top === 'clients') kernelImports.push(`${name(file)} imports ${specifier}`);
    if (from) graph.get(from)!.add(to);
    if (from && partsOf(target).slice(1).join('/') !== 'index.ts') reachIns.push(`${name(file)} imports ${specifier}`);
  }
}

/** Every cycle of the feature graph, each once, as a path that returns to its first feature. */
function cyclesOf(): string[][] {
  const found = new Map<string, string[]>();
  const walk = (path: string[]) => {
    for (const next of graph.get(path[path.length - 1])!) {
      if (next === path[0]) {
        const key = [...path].sort().join(',');
        if (!found.has(key)) found.set(key, [...path, next]);
      } else if (!path.includes(next) && next > path[0]) walk([...path, next]);
    }
  };
  for (const start of features) walk([start]);
  return [...found.values()];
}

const cycles = cyclesOf();
const small = files.filter((f) => !f.endsWith(`${sep}index.ts`) && readFileSync(f, 'utf8').trimEnd().split('\n').length <= SMALL);
const mutualPairs = cycles.filter((c) => c.length === 3);

console.log(`connect features: ${features.join(', ')}`);
console.log(`feature graph: ${features.map((f) => `${f} → ${[...graph.get(f)!].sort().join(', ') || '∅'}`).join('; ')}`);
console.log(`imports reaching into another feature (not through its index.ts): ${reachIns.length}`);
console.log(`shared/ or clients/ imports of a feature: ${kernelImports.length}`);
console.log(`feature cycles: ${cycles.length} (mutually importing pairs: ${mutualPairs.length})`);
const entryPoints = files.filter((f) => f.endsWith(`${sep}index.ts`)).length;
console.log(`connect files of ≤ ${SMALL} lines: ${small.length} of ${files.length} (ceiling ${SMALL_FILE_CEILING}; ${entryPoints} index.ts entry points not counted)`);
if (reportOnly) process.exit(0);

let failed = false;
for (const line of reachIns) {
  console.error(`reaches into another feature: ${line} (import it from that feature's index.ts, or move it to shared/)`);
  failed = true;
}
for (const line of kernelImports) {
  console.error(`the kernel imports a feature: ${line} (shared/ and clients/ serve every feature and import none)`);
  failed = true;
}
for (const cycle of cycles) {
  console.error(`features import each other: ${cycle.join(' → ')} (move what both need to shared/ or to the feature that owns it)`);
  failed = true;
}
if (small.length > SMALL_FILE_CEILING) {
  console.error(`${small.length} connect files of ≤ ${SMALL} lines (ceiling ${SMALL_FILE_CEILING}): fold one-line helpers used once into the function they serve`);
  failed = true;
}
if (failed) process.exit(1);
