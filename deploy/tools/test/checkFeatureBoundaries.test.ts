/** The connect module check (run by `npm run lint`) on small source trees: what it refuses and what it lets through. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** Writes the files (path → source) under a fresh folder and runs the check on it. */
function check(files: Record<string, string>): { status: number | null; output: string } {
  root = mkdtempSync(join(tmpdir(), 'feature-boundaries-'));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'deploy/tools/checkFeatureBoundaries.ts', `--src=${root}`], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

// Enough lines that the small-file count stays out of the way.
const body = (name: string) => `export const ${name} = 1;\n${'// filler\n'.repeat(25)}`;

describe('checkFeatureBoundaries', () => {
  it('lets features import each other through index.ts, one way, and every feature import the kernel', () => {
    const result = check({
      'users/domain/findUser.ts': `import { limit } from '../../shared/domain/limits.js';\n${body('findUser')}`,
      'users/index.ts': `export { findUser } from './domain/findUser.js';\n`,
      'sessions/domain/startSession.ts': `import { findUser } from '../../users/index.js';\n${body('startSession')}`,
      'shared/domain/limits.ts': body('limit'),
    });
    expect(result.output).toContain('feature graph: sessions → users; users → ∅');
    expect(result.status).toBe(0);
  });

  it('refuses a reach into another feature, a kernel that imports a feature, and features importing each other', () => {
    const result = check({
      'users/domain/findUser.ts': `import type { Session } from '../../sessions/store/sessions.js';\n${body('findUser')}`,
      'users/index.ts': `export { findUser } from './domain/findUser.js';\n`,
      'sessions/store/sessions.ts': body('Session'),
      'sessions/domain/startSession.ts': `import { findUser } from '../../users/index.js';\n${body('startSession')}`,
      'shared/domain/limits.ts': `import { findUser } from '../../users/index.js';\n${body('limit')}`,
    });
    expect(result.status).toBe(1);
    expect(result.output).toMatch(/reaches into another feature: .*users\/domain\/findUser\.ts imports \.\.\/\.\.\/sessions\/store\/sessions\.js/);
    expect(result.output).toMatch(/the kernel imports a feature: .*shared\/domain\/limits\.ts/);
    expect(result.output).toContain('features import each other: sessions → users → sessions');
  });

  it('counts files of 20 lines or fewer, index.ts entry points aside', () => {
    const small = Object.fromEntries(Array.from({ length: 39 }, (_, i) => [`users/domain/helper${i}.ts`, `export const h${i} = ${i};\n`]));
    const result = check({ ...small, 'users/index.ts': `export { h0 } from './domain/helper0.js';\n` });
    expect(result.output).toContain('connect files of ≤ 20 lines: 39 of 40 (ceiling 38; 1 index.ts entry points not counted)');
    expect(result.status).toBe(1);
  });
});
