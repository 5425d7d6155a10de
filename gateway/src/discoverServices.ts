/**
 * Finds every generated service descriptor under gen/, so a new RPC with a route option is
 * served without touching the gateway.
 */
import type { DescService } from '@bufbuild/protobuf';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const GEN_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'gen');

function pbFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return pbFiles(path);
    return /_pb\.(ts|js)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

export async function discoverServices(genDir = GEN_DIR): Promise<DescService[]> {
  const services: DescService[] = [];
  for (const file of pbFiles(genDir).sort()) {
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      if (value && typeof value === 'object' && (value as { kind?: unknown }).kind === 'service') services.push(value as DescService);
    }
  }
  return services;
}
