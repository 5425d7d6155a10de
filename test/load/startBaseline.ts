/** Starts serveBaseline.ts as its own process (measured from /proc like the stack's processes). */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Baseline {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./serveBaseline.ts', import.meta.url));

export async function startBaseline(authorization: string, origin: string): Promise<Baseline> {
  // Launched like the stack's processes under `npm start` (node with the tsx loader), so neither
  // side gains from a different way of loading code.
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
    env: { ...process.env, BASELINE_AUTHORIZATION: authorization, BASELINE_ORIGIN: origin },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code} before it listened`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
