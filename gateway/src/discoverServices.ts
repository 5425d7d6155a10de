/**
 * Finds every generated service descriptor under gen/, so a new RPC with a route option is
 * served without touching the gateway.
 */
import type { DescService } from '@bufbuild/protobuf';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const GEN_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'gen');

function pbFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return pbFiles(path);
    return /_pb\.(ts|js)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

export async function discoverServices(): Promise<DescService[]> {
  const services: DescService[] = [];
  for (const file of pbFiles(GEN_DIR).sort()) {
    // A path relative to this module in a template literal: Node (dist/), tsx and vitest import
    // it as usual, and esbuild sees the `../../gen/` prefix and bundles every module under it
    // (.local/build/gateway.js), sharing them with the gateway's static imports. Vite would
    // want a fixed extension (.ts here, .js in dist/), so it is told to leave the import alone.
    const mod = (await import(/* @vite-ignore */ `../../gen/${relative(GEN_DIR, file).split(sep).join('/')}`)) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      if (value && typeof value === 'object' && (value as { kind?: unknown }).kind === 'service') services.push(value as DescService);
    }
  }
  return services;
}
