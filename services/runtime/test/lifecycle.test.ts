/**
 * Shutdown: a second SIGTERM (as a process-group signal delivers, directly and from the
 * supervisor) does not cut a drain short; the process drains, closes and exits 0 once.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('handleShutdown', () => {
  it('survives a second SIGTERM during the drain and exits 0 after closing', async () => {
    const script = [
      "import { createServer } from 'node:http';",
      "const { handleShutdown, listen } = await import('./services/runtime/lifecycle.ts');",
      'const server = createServer((q, s) => s.end());',
      "await listen(server, 0, '127.0.0.1');",
      "const logger = { info: (o, m) => console.log(typeof o === 'string' ? o : m ?? JSON.stringify(o)), error: () => {} };",
      "handleShutdown({ logger, servers: [server], markNotReady: () => console.log('not ready'), drainMs: 800, close: async () => console.log('closed') });",
      "console.log('up');",
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines: string[] = [];
    child.stdout.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
    await expect.poll(() => lines.includes('up'), { timeout: 20_000 }).toBe(true);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    child.kill('SIGTERM');
    await expect.poll(() => lines.includes('not ready'), { timeout: 5000 }).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(lines).toContain('closed');
    expect(lines).toContain('stopped');
    expect(lines.filter((l) => l === 'not ready')).toHaveLength(1);
  }, 30_000);
});
