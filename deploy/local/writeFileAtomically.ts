/**
 * Writes a file so that a reader sees either no file or the whole of it, never a half-written one:
 * the text goes to a temporary name beside it, and rename() puts it in place in one step. Scripts
 * poll for .local/demo-project.json and read it the moment it appears.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';

export function writeFileAtomically(path: string, text: string): void {
  // Same directory, so rename() stays on one filesystem (atomic); the pid keeps two launchers apart.
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, text, { mode: 0o600 });
    renameSync(temp, path);
  } finally {
    rmSync(temp, { force: true });
  }
}
