/**
 * `npm run lint` (after ESLint): fails when TypeScript files import each other in a circle.
 *
 * import-x/no-cycle (ESLint) skips `import type`, but a circle of type imports still ties two
 * modules together (store ↔ domain was one), so this check follows every import and re-export,
 * type-only or not, between the repository's own files, and reports each circle once (each
 * strongly connected component of the import graph, with one path through it as the example).
 *
 * Usage: tsx deploy/tools/findImportCycles.ts [folder…] (default: deploy services gateway test)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['deploy', 'services', 'gateway', 'test'];
const SKIP = new Set(['node_modules', 'dist', 'build', '.data', '.local', 'test-artifacts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts') ? [resolve(path)] : [];
  });
}

/** The file a relative specifier names ('./x.js' is written for './x.ts' under NodeNext), or null. */
function resolveSpecifier(from: string, specifier: string, known: Set<string>): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => known.has(c)) ?? null;
}

/** Every module specifier of a file: imports, re-exports and dynamic imports, type-only included. */
function specifiersOf(file: string): string[] {
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((f) => f.fileName);
}

const files = roots.flatMap((r) => sourceFiles(r));
const known = new Set(files);
const edges = new Map<string, string[]>(files.map((f) => [f, [...new Set(specifiersOf(f).map((s) => resolveSpecifier(f, s, known)).filter((t): t is string => t !== null))]]));

// Tarjan's strongly connected components, iterative (deep import chains must not overflow the stack).
let counter = 0;
const index = new Map<string, number>();
const low = new Map<string, number>();
const onStack = new Set<string>();
const stack: string[] = [];
const components: string[][] = [];
for (const start of files) {
  if (index.has(start)) continue;
  const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
  index.set(start, counter);
  low.set(start, counter++);
  stack.push(start);
  onStack.add(start);
  while (work.length) {
    const frame = work[work.length - 1];
    const targets = edges.get(frame.node)!;
    if (frame.next < targets.length) {
      const target = targets[frame.next++];
      if (!index.has(target)) {
        index.set(target, counter);
        low.set(target, counter++);
        stack.push(target);
        onStack.add(target);
        work.push({ node: target, next: 0 });
      } else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
      continue;
    }
    work.pop();
    if (work.length) low.set(work[work.length - 1].node, Math.min(low.get(work[work.length - 1].node)!, low.get(frame.node)!));
    if (low.get(frame.node) === index.get(frame.node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || edges.get(frame.node)!.includes(frame.node)) components.push(component);
    }
  }
}

/** One circle through the component, from its first file back to it (breadth-first, so the shortest). */
function exampleCircle(component: string[]): string[] {
  const inside = new Set(component);
  const first = [...component].sort()[0];
  const previous = new Map<string, string>();
  const queue = [first];
  while (queue.length) {
    const node = queue.shift()!;
    for (const target of edges.get(node)!) {
      if (!inside.has(target)) continue;
      if (target === first) {
        const path = [node];
        while (path[0] !== first) path.unshift(previous.get(path[0])!);
        return [...path, first];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [first];
}

const name = (f: string) => relative(process.cwd(), f);
for (const component of components) {
  console.error(`import circle among ${component.length} files: ${exampleCircle(component).map(name).join(' → ')}`);
  if (component.length > 2) console.error(`  all files in it: ${component.map(name).sort().join(', ')}`);
}
if (components.length) {
  console.error(`${components.length} import circle(s); move what both sides need to the module that owns it.`);
  process.exit(1);
}
console.log(`no import circles among ${files.length} files`);
