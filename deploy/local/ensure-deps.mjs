// Runs `npm ci` when node_modules is missing or older than package-lock.json, so `npm start`
// and `npm test` work straight from a fresh clone. Plain JavaScript: it runs before tsx exists.
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync('package-lock.json').mtimeMs;
if (stale) {
  process.stderr.write('installing dependencies (npm ci)…\n');
  execSync('npm ci --no-audit --no-fund', { stdio: 'inherit' });
}
