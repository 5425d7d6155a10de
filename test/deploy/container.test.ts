/**
 * The container image without a container engine: the Dockerfile's stages emulated in a temporary
 * copy of the repository (the files git tracks or would track). build: `npm ci` + `npm run build`;
 * deps: the Dockerfile's own `npm ci` command on the files that stage copies (package.json and the
 * lock file, not the workspace packages); runtime: only package.json, that node_modules and dist/
 * moved into a directory of their own. Then every process starts from the compiled entry point,
 * as the image's ENTRYPOINT runs it (plain node, no tsx), against an embedded store, and answers
 * /healthz, /readyz and /metrics; the compiled project CLI creates a project whose API secret
 * works through the compiled gateway. Also checks that the Dockerfile only copies files that exist
 * and that .dockerignore does not hide them.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedMongo, type EmbeddedMongo } from '@passkeyauth/embedded-mongo';
import { stackProcesses, type StackPorts } from '../../deploy/local/processes.js';
import { Supervisor } from '../../deploy/local/supervisor.js';
import { basic, freePort } from '../kit/startStack.js';

const run = promisify(execFile);
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SLOW = 300_000;

/** Files of the repository as a fresh clone plus uncommitted work would have them. */
function repositoryFiles(): string[] {
  const out = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: REPO, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`git ls-files failed: ${out.stderr}`);
  return out.stdout.split('\0').filter((f) => f && existsSync(join(REPO, f)) && statSync(join(REPO, f)).isFile());
}

/** The environment of a command run here: npm settings of the outer `npm test` kept, loaders dropped. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', ...extra };
  delete env.NODE_ENV;
  return env;
}

async function npm(cwd: string, args: string[]): Promise<void> {
  await run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });
}

describe('Dockerfile and .dockerignore', () => {
  const dockerfile = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
  const ignore = readFileSync(join(REPO, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  /** A .dockerignore pattern as a regular expression over context paths (the subset used: *, **, plain paths). */
  const ignored = (path: string) =>
    ignore.some((pattern) => {
      const re = pattern
        .replace(/^\/+|\/+$/g, '')
        .split('/')
        .map((seg) => (seg === '**' ? '.*' : seg.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')))
        .join('/')
        .replace(/\.\*\//g, '(?:.*/)?');
      return new RegExp(`^${re}(?:/.*)?$`).test(path);
    });
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  it('has a build, a deps and a runtime stage; the runtime is distroless, non-root and starts the compiled entry point', () => {
    const stages = instructions.filter((l) => /^FROM\s/i.test(l)).map((l) => /\sAS\s+(\S+)/i.exec(l)?.[1]);
    expect(stages).toEqual(['build', 'deps', 'runtime']);
    // The Node.js that npm start and the tests run on (the exact `node` dev dependency) is the
    // image's, in the build stage and at run time.
    const major = /^(\d+)\./.exec(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).devDependencies.node)?.[1];
    expect(Number(major)).toBeGreaterThanOrEqual(22);
    expect(dockerfile).toMatch(new RegExp(`ARG NODE_IMAGE=node:${major}-bookworm-slim`));
    expect(dockerfile).toMatch(new RegExp(`ARG RUNTIME_IMAGE=gcr\\.io/distroless/nodejs${major}-debian12:nonroot`));
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/RUN npm run build/);
    const runtime = instructions.slice(instructions.findIndex((l) => /^FROM .* AS runtime$/i.test(l)));
    // The uid/gid deploy/k8s runs the containers as (runAsUser/runAsGroup 10001).
    expect(runtime).toContain('USER 10001:10001');
    expect(runtime.some((l) => /^ENV .*HOST=0\.0\.0\.0/.test(l) && /NODE_ENV=production/.test(l))).toBe(true);
    expect(runtime).toContain('ENTRYPOINT ["/nodejs/bin/node", "--heap-growing-percent=100", "dist/deploy/container/entrypoint.js"]');
    expect(runtime).toContain('CMD ["gateway"]');
    expect(runtime.find((l) => l.startsWith('EXPOSE'))?.split(/\s+/).slice(1).sort()).toEqual(['7101', '7102', '7103', '7104', '8080', '8081']);
    // Only the built artefacts reach the runtime stage, never sources or dev dependencies.
    const copies = runtime.filter((l) => l.startsWith('COPY'));
    expect(copies).toEqual(['COPY package.json ./', 'COPY --from=deps /app/node_modules ./node_modules', 'COPY --from=build /app/dist ./dist']);
    expect(runtime.some((l) => l.startsWith('RUN'))).toBe(false);
  });

  it("runs as the uid/gid the Kubernetes manifests of the five processes set (runAsUser, runAsGroup)", () => {
    const [uid, gid] = /^USER (\d+):(\d+)$/m.exec(dockerfile)!.slice(1);
    for (const name of ['gateway', 'ceremony', 'challenge', 'connect', 'events']) {
      const file = join(REPO, 'deploy', 'k8s', 'base', `${name}.yaml`);
      if (!existsSync(file)) continue;
      const yaml = readFileSync(file, 'utf8');
      const users = [...yaml.matchAll(/runAsUser: (\d+)/g)].map((m) => m[1]);
      const groups = [...yaml.matchAll(/runAsGroup: (\d+)/g)].map((m) => m[1]);
      expect(users.length, name).toBeGreaterThan(0);
      expect(new Set(users), name).toEqual(new Set([uid]));
      expect(new Set(groups), name).toEqual(new Set([gid]));
    }
  });

  it('copies only files and directories that exist in the build context (not hidden by .dockerignore)', () => {
    const files = repositoryFiles();
    const stages = new Set(instructions.filter((l) => /^FROM\s/i.test(l)).map((l) => /\sAS\s+(\S+)/i.exec(l)![1]));
    const copies = instructions.filter((l) => /^COPY\s/i.test(l));
    expect(copies.length).toBeGreaterThan(5);
    for (const copy of copies) {
      const words = copy.split(/\s+/).slice(1);
      const from = words.find((w) => w.startsWith('--from='));
      if (from) {
        expect(stages.has(from.slice('--from='.length)), copy).toBe(true);
        continue;
      }
      const sources = words.filter((w) => !w.startsWith('--')).slice(0, -1);
      for (const source of sources) {
        const path = source.replace(/^\.\//, '').replace(/\/$/, '');
        const inContext = files.filter((f) => (f === path || f.startsWith(`${path}/`)) && !ignored(f));
        expect(inContext.length, `${copy}: ${source} is not in the build context`).toBeGreaterThan(0);
      }
    }
    for (const must of ['package.json', 'package-lock.json', 'tsconfig.build.json', 'deploy/container/entrypoint.ts', 'gen/passkeyauth/connect/v1/project_service_pb.ts']) {
      expect(ignored(must), must).toBe(false);
    }
    for (const never of ['node_modules/x/index.js', '.git/HEAD', '.local/master.key', '.data/db/journal', 'dist/gateway/src/main.js', 'services/ceremony/test/flows.ts']) {
      expect(ignored(never), never).toBe(true);
    }
  });
});

describe('compiled processes from production dependencies only', () => {
  let temp = '';
  let app = '';
  let embedded: EmbeddedMongo | undefined;
  let supervisor: Supervisor | undefined;
  const logs: string[] = [];
  let ports: StackPorts;
  let env: Record<string, string>;
  const entry = () => join(app, 'dist', 'deploy', 'container', 'entrypoint.js');
  /** node's own flags in the image's ENTRYPOINT (between the binary and the script), so a flag node refuses fails here. */
  const entryNodeFlags = (() => {
    const m = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(readFileSync(join(REPO, 'Dockerfile'), 'utf8'));
    const argv = JSON.parse(m![1]) as string[];
    return argv.slice(1, argv.indexOf('dist/deploy/container/entrypoint.js'));
  })();

  /** The Dockerfile's "deps" stage: the files it copies and the arguments of its `npm ci`. */
  const depsStage = (() => {
    const lines = readFileSync(join(REPO, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ').split('\n').map((l) => l.trim());
    const stage = lines.slice(lines.findIndex((l) => /^FROM .* AS deps$/i.test(l)) + 1);
    const body = stage.slice(0, stage.findIndex((l) => /^FROM\s/i.test(l)));
    const files = body.filter((l) => l.startsWith('COPY ')).flatMap((l) => l.split(/\s+/).slice(1, -1));
    const runs = body.filter((l) => l.startsWith('RUN '));
    const npmArgs = runs.length === 1 ? runs[0].split(/\s+/).slice(1).filter((w) => !w.startsWith('--mount=')) : [];
    if (npmArgs[0] !== 'npm') throw new Error(`the Dockerfile's deps stage should run one npm command, not: ${runs.join(' | ')}`);
    return { files, npmArgs: npmArgs.slice(1) };
  })();

  beforeAll(async () => {
    temp = mkdtempSync(join(tmpdir(), 'passkeyauth-image-'));
    const work = join(temp, 'build');
    for (const file of repositoryFiles()) {
      mkdirSync(dirname(join(work, file)), { recursive: true });
      cpSync(join(REPO, file), join(work, file));
    }
    // Stage "build" (every dependency, so the workspace packages too, which the build must not need).
    await npm(work, ['ci', '--ignore-scripts']);
    await npm(work, ['run', 'build']);
    // Stage "deps" as the Dockerfile runs it: its files alone in a directory of their own, its npm command.
    const deps = join(temp, 'deps');
    mkdirSync(deps);
    for (const file of depsStage.files) cpSync(join(REPO, file), join(deps, file));
    await npm(deps, depsStage.npmArgs);
    // Stage "runtime": package.json, node_modules and dist/, nothing else.
    app = join(temp, 'app');
    mkdirSync(app);
    cpSync(join(work, 'package.json'), join(app, 'package.json'));
    renameSync(join(deps, 'node_modules'), join(app, 'node_modules'));
    renameSync(join(work, 'dist'), join(app, 'dist'));
    rmSync(work, { recursive: true, force: true });
    rmSync(deps, { recursive: true, force: true });

    embedded = await startEmbeddedMongo({ port: 0 });
    const uri = new URL(embedded.uri);
    uri.pathname = `/image_${randomBytes(4).toString('hex')}`;
    ports = { ceremony: await freePort(), challenge: await freePort(), connect: await freePort(), events: await freePort(), frontend: await freePort(), backend: await freePort() };
    const masterKey = randomBytes(32).toString('hex');
    const frontendApiUrl = `http://127.0.0.1:${ports.frontend}`;
    const backendApiUrl = `http://127.0.0.1:${ports.backend}`;
    env = { MONGODB_URI: uri.toString(), MASTER_KEY: masterKey, FRONTEND_API_URL: frontendApiUrl, BACKEND_API_URL: backendApiUrl };
    supervisor = new Supervisor((line) => logs.push(line));
    const specs = stackProcesses({ mongodbUri: env.MONGODB_URI, masterKey, ports, frontendApiUrl, backendApiUrl, logLevel: 'warn' });
    try {
      for (const spec of specs) {
        // As the image runs it: node <its flags> <entrypoint> <process>, production mode, no loader.
        await supervisor.start({ ...spec, command: process.execPath, args: [...entryNodeFlags, entry(), spec.name], env: { ...spec.env, NODE_ENV: 'production', NODE_OPTIONS: '' } }, 60_000);
      }
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${logs.join('\n')}`, { cause: err });
    }
  }, SLOW);

  afterAll(async () => {
    await supervisor?.stop();
    await embedded?.stop();
    if (temp) rmSync(temp, { recursive: true, force: true });
  }, 60_000);

  it('has no development dependency, and no TypeScript source, in the runtime directory', () => {
    for (const dev of ['tsx', 'typescript', 'vitest', 'esbuild', '@bufbuild/buf']) expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false);
    for (const prod of ['mongodb', '@connectrpc/connect-node', 'prom-client', 'pino']) expect(existsSync(join(app, 'node_modules', prod)), prod).toBe(true);
    // The workspace packages and what only they use (the embedded store's engine, the demo's browser SDK) stay out.
    for (const local of ['@passkeyauth', 'mingo', 'sorted-btree', '@node-rs/crc32', '@corbado/web-js', '@simplewebauthn/browser']) expect(existsSync(join(app, 'node_modules', local)), local).toBe(false);
    // Every installed package is one the root package's production dependencies need.
    const lock = JSON.parse(readFileSync(join(app, 'node_modules', '.package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; link?: boolean }> };
    expect(Object.entries(lock.packages).filter(([, p]) => p.dev || p.link).map(([path]) => path)).toEqual([]);
    expect(existsSync(join(app, 'dist', 'gen', 'passkeyauth', 'ceremony', 'v1', 'ceremony_service_pb.js'))).toBe(true);
    expect(existsSync(join(app, 'dist', 'services', 'connect', 'src', 'cli', 'project.js'))).toBe(true);
    // Tests, local tooling and the embedded store are not compiled into the image.
    for (const absent of ['services/ceremony/test', 'deploy/local', 'deploy/tools', 'test']) expect(existsSync(join(app, 'dist', absent)), absent).toBe(false);
  });

  it('answers /healthz, /readyz and /metrics on every process (both gateway listeners)', async () => {
    const bases = [ports.ceremony, ports.challenge, ports.connect, ports.events, ports.frontend, ports.backend].map((p) => `http://127.0.0.1:${p}`);
    for (const base of bases) {
      for (const path of ['/healthz', '/readyz', '/metrics']) {
        const res = await fetch(`${base}${path}`);
        expect(res.status, `${base}${path}`).toBe(200);
        await res.arrayBuffer();
      }
    }
    const metrics = await (await fetch(`http://127.0.0.1:${ports.ceremony}/metrics`)).text();
    expect(metrics).toContain('ceremony_outcomes_total');
    expect(metrics).toMatch(/^store_operation_duration_seconds_count\{[^}]*operation="createIndexes"[^}]*\} [1-9]/m);
    expect(await (await fetch(`http://127.0.0.1:${ports.challenge}/metrics`)).text()).toContain('challenge_deliveries_total');
  });

  it('creates a project with the compiled CLI; its API secret works through the compiled gateway', async () => {
    const cli = join(app, 'dist', 'services', 'connect', 'src', 'cli', 'project.js');
    const { stdout } = await run(process.execPath, [cli, 'create', '--name', 'image-test', '--rp-id', 'localhost', '--origin', 'http://localhost:3000'], {
      cwd: app,
      env: cleanEnv({ ...env, NODE_ENV: 'production' }),
    });
    const project = JSON.parse(stdout) as { projectID: string; apiSecret: string };
    expect(project.projectID).toMatch(/^pro-[0-9]+$/);
    const created = await fetch(`http://127.0.0.1:${ports.backend}/v2/users`, {
      method: 'POST',
      headers: { authorization: basic(project), 'content-type': 'application/json' },
      body: JSON.stringify({ fullName: 'Ada Lovelace', status: 'active' }),
    });
    const body = (await created.json()) as { userID?: string };
    expect(created.status, JSON.stringify(body)).toBe(200);
    expect(body.userID).toMatch(/^usr-[0-9]+$/);
    const refused = await fetch(`http://127.0.0.1:${ports.backend}/v2/users`, {
      method: 'POST',
      headers: { authorization: basic({ projectID: project.projectID, apiSecret: 'wrong' }), 'content-type': 'application/json' },
      body: JSON.stringify({ fullName: 'Mallory', status: 'active' }),
    });
    expect(refused.status).toBe(401);
  });

  it('the entry point refuses a missing or unknown process with usage on stderr and exit code 2', () => {
    for (const args of [[], ['worker'], ['gateway', 'extra']]) {
      const r = spawnSync(process.execPath, [entry(), ...args], { encoding: 'utf8', env: cleanEnv() });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('usage: entrypoint <gateway|ceremony|challenge|connect|events>');
      expect(r.stdout).toBe('');
    }
  });
});
