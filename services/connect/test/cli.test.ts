import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateBackend } from '../src/projects/domain/authenticateBackend.js';
import { getProject } from '../src/projects/domain/getProject.js';
import { listPublicJwks } from '../src/projects/domain/signingKeys.js';
import { ensureProject, projectAdminConfigFromEnv, REPO_ROOT } from '../src/cli/projectAdmin.js';
import { MASTER_KEY_HEX, startTestEnv, type TestEnv } from './support.js';

const run = promisify(execFile);
let env: TestEnv;
let cliEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  env = await startTestEnv();
  cliEnv = { ...process.env, MONGODB_URI: env.uri, MASTER_KEY: MASTER_KEY_HEX, FRONTEND_API_URL: 'https://{projectID}.auth.example.com', BACKEND_API_URL: 'https://backend.example.com/' };
});
afterAll(() => env?.close());

/** Runs the CLI as `npm run project` does (tsx), capturing stdout, stderr and the exit code. */
async function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'services/connect/src/cli/project.ts', ...args], { cwd: REPO_ROOT, env: { ...cliEnv, ...extraEnv } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('project CLI', () => {
  let created: Record<string, unknown>;

  it('create prints one JSON object with the documented keys', async () => {
    const r = await cli(['create', '--name', 'CLI demo', '--rp-id', 'localhost', '--origin', 'http://localhost:3000', '--origin', 'http://127.0.0.1:3000']);
    expect(r.code).toBe(0);
    created = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(created).sort()).toEqual(['apiSecret', 'backendApiUrl', 'clientKey', 'frontendApiUrl', 'origins', 'projectID', 'rpID'].sort());
    expect(created.projectID).toMatch(/^pro-[0-9]{20}$/);
    expect(created.apiSecret).toMatch(/^corbado1_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      frontendApiUrl: `https://${created.projectID as string}.auth.example.com`,
      backendApiUrl: 'https://backend.example.com',
      rpID: 'localhost',
      origins: ['http://localhost:3000', 'http://127.0.0.1:3000'],
    });
    // What it printed works: the secret authenticates and the client key verifies against the JWKS.
    const projectId = created.projectID as string;
    await expect(authenticateBackend(env.deps, projectId, created.apiSecret as string)).resolves.toBe(projectId);
    const project = await getProject(env.deps, projectId);
    const { payload } = await jwtVerify(created.clientKey as string, createLocalJWKSet({ keys: listPublicJwks(project) }), { issuer: created.frontendApiUrl as string, audience: projectId });
    expect(payload).toMatchObject({ kind: 'client', sub: projectId });
  });

  it('runs as the npm script with nothing but JSON on stdout', async () => {
    const { stdout } = await run('npm', ['run', '--silent', 'project', '--', 'create', '--name', 'Via npm', '--rp-id', 'localhost', '--origin', 'http://localhost:3000'], {
      cwd: REPO_ROOT,
      env: cliEnv,
    });
    expect(JSON.parse(stdout)).toMatchObject({ rpID: 'localhost', origins: ['http://localhost:3000'] });
  });

  it('list prints projects without secrets', async () => {
    const r = await cli(['list']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(list.map((p) => p.projectID)).toContain(created.projectID);
    expect(r.stdout).not.toContain(created.apiSecret as string);
    expect(r.stdout).not.toMatch(/apiSecret"|hash|ciphertext|clientKey/);
  });

  it('rotate-secret adds a secret, and --revoke-others makes it the only one', async () => {
    const projectId = created.projectID as string;
    const rotated = await cli(['rotate-secret', '--project', projectId]);
    expect(rotated.code).toBe(0);
    const { apiSecret } = JSON.parse(rotated.stdout) as { projectID: string; apiSecret: string };
    expect(JSON.parse(rotated.stdout)).toEqual({ projectID: projectId, apiSecret: expect.stringMatching(/^corbado1_/) });
    await expect(authenticateBackend(env.deps, projectId, created.apiSecret as string)).resolves.toBe(projectId);
    await expect(authenticateBackend(env.deps, projectId, apiSecret)).resolves.toBe(projectId);

    const revoked = await cli(['rotate-secret', '--project', projectId, '--revoke-others']);
    const latest = (JSON.parse(revoked.stdout) as { apiSecret: string }).apiSecret;
    await expect(authenticateBackend(env.deps, projectId, apiSecret)).rejects.toMatchObject({ type: 'invalid_credentials' });
    await expect(authenticateBackend(env.deps, projectId, latest)).resolves.toBe(projectId);
  });

  it('add-origin prints the project\'s origins', async () => {
    const r = await cli(['add-origin', '--project', created.projectID as string, '--origin', 'https://app.example.com/']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ projectID: created.projectID, origins: ['http://localhost:3000', 'http://127.0.0.1:3000', 'https://app.example.com'] });
  });

  it.each([
    [['create', '--name', 'x', '--rp-id', 'localhost']],
    [['create', '--name', 'x', '--rp-id', 'localhost', '--origin', 'not a url']],
    [['create', '--name', 'x', '--rp-id', 'localhost', '--origin', 'http://localhost:3000', '--environment', 'staging']],
    [['create', '--bogus']],
    [['rotate-secret']],
    [['rotate-secret', '--project', 'pro-1']],
    [['add-origin', '--project', 'pro-1']],
    [['frobnicate']],
    [[]],
  ])('%j exits 2 with a message on stderr and nothing on stdout', async (args) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/error: /);
  });

  it('explains a missing master key', async () => {
    const root = mkdtempSync(join(tmpdir(), 'connect-cli-'));
    expect(() => projectAdminConfigFromEnv({}, root)).toThrow(/MASTER_KEY.*\.local\/master\.key/);
    mkdirSync(join(root, '.local'));
    writeFileSync(join(root, '.local/master.key'), 'not hex\n');
    expect(() => projectAdminConfigFromEnv({}, root)).toThrow(/64 hex characters/);
    writeFileSync(join(root, '.local/master.key'), `${'b2'.repeat(32)}\n`);
    expect(projectAdminConfigFromEnv({}, root).masterKey).toEqual(Buffer.from('b2'.repeat(32), 'hex'));
  });
});

describe('ensureProject', () => {
  it('creates once, then reuses the project by name with a fresh, only secret and any new origins', async () => {
    const first = await ensureProject({ name: 'Launcher demo', rpId: 'localhost', origins: ['http://localhost:3000'] }, env.deps);
    const second = await ensureProject({ name: 'Launcher demo', rpId: 'localhost', origins: ['http://localhost:3000', 'http://localhost:5173'] }, env.deps);
    expect(second.projectID).toBe(first.projectID);
    expect(second.apiSecret).not.toBe(first.apiSecret);
    expect(second.origins).toEqual(['http://localhost:3000', 'http://localhost:5173']);
    await expect(authenticateBackend(env.deps, first.projectID, first.apiSecret)).rejects.toMatchObject({ type: 'invalid_credentials' });
    await expect(authenticateBackend(env.deps, second.projectID, second.apiSecret)).resolves.toBe(first.projectID);
    await expect(ensureProject({ name: 'Launcher demo', rpId: 'example.com', origins: ['http://localhost:3000'] }, env.deps)).rejects.toMatchObject({
      type: 'project_rp_id_mismatch',
    });
  });
});
