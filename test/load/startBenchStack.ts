/**
 * The stack the bench measures, started the way `npm start` starts it: the embedded store as its own
 * process journaling to a data directory (unless MONGODB_URI is set), then `stackProcesses` under
 * the Supervisor with `npm start`'s defaults (log level info), on free ports, each in a fresh
 * database. How the processes are launched comes from deploy/local/processes.ts, so the bench
 * follows any change there. Not started: the mail catcher and the demo app, which no benchmarked
 * request reaches (the bench's projects use the default "app" challenge delivery, so nothing is
 * mailed).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { buildBundles } from '../../deploy/local/buildBundles.js';
import { embeddedMongoProcess, stackProcesses, type StackPorts } from '../../deploy/local/processes.js';
import { Supervisor } from '../../deploy/local/supervisor.js';
import { createProject } from '../../services/connect/src/projects/domain/createProject.js';
import { openProjectAdmin, type ProjectCredentials } from '../../services/connect/src/cli/projectAdmin.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';
import { freePort } from '../kit/startStack.js';
import { withDatabase } from '../../services/runtime/mongo.js';

export const BENCH_ORIGIN = 'http://localhost:3000';

export interface BenchStack {
  backendUrl: string;
  /** With the bench's own database name in the path. */
  mongodbUri: string;
  /** True when the store is the embedded one this stack started (so its process can be measured). */
  embeddedStore: boolean;
  /** Name → pid of every process of the stack that runs now, the store first. */
  pids(): Record<string, number>;
  /** Name → base URL whose /metrics the process serves. */
  metricsUrls: Record<string, string>;
  createProject(name: string): Promise<ProjectCredentials>;
  /** Lines announcing a crash and restart of one of the processes, if any. */
  restarts(): string[];
  /** The processes' most recent output, for a failed start. */
  logTail(): string[];
  stop(): Promise<void>;
}

/** BENCH_CPU_PROF_DIR=DIR: every started process writes a V8 CPU profile there when it stops (node --cpu-prof). */
function profiled<T extends { args: string[] }>(spec: T): T {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir ? { ...spec, args: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=500', ...spec.args] } : spec;
}

const NAMES = ['mongo', 'connect', 'challenge', 'ceremony', 'events', 'gateway'];

export async function startBenchStack(stackEnv: Record<string, string>): Promise<BenchStack> {
  // The processes run the bundles `npm start` runs; a fresh clone has none yet.
  await buildBundles();
  const tail: string[] = [];
  const restartLines: string[] = [];
  // The Supervisor pipes every line through this process, as under `npm start`; only a tail is kept.
  const supervisor = new Supervisor((line) => {
    tail.push(line);
    if (tail.length > 300) tail.shift();
    if (/\| exited \(/.test(line)) restartLines.push(line);
  });
  const dbName = `bench_${randomBytes(4).toString('hex')}`;
  let dataDir: string | null = null;
  let mongodbUri: string;
  try {
    if (process.env.MONGODB_URI) {
      mongodbUri = withDatabase(process.env.MONGODB_URI, dbName);
    } else {
      dataDir = mkdtempSync(join(tmpdir(), 'passkeyauth-bench-'));
      const port = await freePort();
      const store = embeddedMongoProcess({ port, dataDir });
      await supervisor.start({ ...profiled(store), env: { ...store.env, ...stackEnv } });
      mongodbUri = `mongodb://127.0.0.1:${port}/${dbName}`;
    }
    const ports: StackPorts = { ceremony: await freePort(), challenge: await freePort(), connect: await freePort(), events: await freePort(), frontend: await freePort(), backend: await freePort() };
    const frontendApiUrl = `http://127.0.0.1:${ports.frontend}`;
    const backendApiUrl = `http://127.0.0.1:${ports.backend}`;
    const masterKey = randomBytes(32).toString('hex');
    for (const spec of stackProcesses({ mongodbUri, masterKey, ports, frontendApiUrl, backendApiUrl })) {
      await supervisor.start({ ...profiled(spec), env: { ...spec.env, ...stackEnv } });
    }
    const metricsUrls = {
      connect: `http://127.0.0.1:${ports.connect}`,
      challenge: `http://127.0.0.1:${ports.challenge}`,
      ceremony: `http://127.0.0.1:${ports.ceremony}`,
      events: `http://127.0.0.1:${ports.events}`,
      // The gateway serves /metrics on both listeners.
      gateway: frontendApiUrl,
    };
    const uri = mongodbUri;
    return {
      backendUrl: backendApiUrl,
      mongodbUri: uri,
      embeddedStore: dataDir !== null,
      metricsUrls,
      pids() {
        const out: Record<string, number> = {};
        for (const name of NAMES) {
          const pid = supervisor.pidOf(name);
          if (pid !== undefined) out[name] = pid;
        }
        return out;
      },
      async createProject(name) {
        // What `npm run project -- create` does, in process.
        const admin = await openProjectAdmin({ mongodbUri: uri, masterKey: parseMasterKey(masterKey), urls: { frontendApiUrl, backendApiUrl } });
        try {
          const { project, apiSecret, clientKey } = await createProject(admin.deps, { name, rpId: 'localhost', origins: [BENCH_ORIGIN] });
          return { projectID: project._id, apiSecret, clientKey, frontendApiUrl: project.frontendApiUrl, backendApiUrl: project.backendApiUrl, rpID: project.rpId, origins: [...project.origins] };
        } finally {
          await admin.close();
        }
      },
      restarts: () => [...restartLines],
      logTail: () => [...tail],
      async stop() {
        if (!dataDir) await dropDatabase(uri);
        await supervisor.stop();
        if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await supervisor.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`${(err as Error).message}\n${tail.slice(-40).join('\n')}`, { cause: err });
  }
}

async function dropDatabase(uri: string): Promise<void> {
  const client = new MongoClient(uri);
  try {
    await client.db().dropDatabase();
  } catch {
    // Best effort: a leftover bench_* database is harmless and named as the bench's.
  } finally {
    await client.close();
  }
}

