/**
 * Starts the real processes (three services and the gateway) on free ports against the embedded
 * store (or MONGODB_URI), for end-to-end tests through the gateway over HTTP.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MongoClient, type Db } from 'mongodb';
import { bundleArgs, buildBundles } from '../../deploy/local/buildBundles.js';
import { startEmbeddedMongo, type EmbeddedMongo } from '@passkeyauth/embedded-mongo';
import { newInternalAuthKey } from '../../deploy/local/localSecrets.js';
import { embeddedMongoProcess, stackProcesses, type StackPorts } from '../../deploy/local/processes.js';
import { Supervisor } from '../../deploy/local/supervisor.js';
import type { ProjectCredentials } from '../../services/connect/src/cli/projectAdmin.js';
import { withDatabase } from '../../services/runtime/mongo.js';

const run = promisify(execFile);

/** What `project create` prints. */
export type ProjectJson = ProjectCredentials;

export interface Stack {
  frontendUrl: string;
  backendUrl: string;
  ports: StackPorts;
  env: Record<string, string>;
  /** The stack's INTERNAL_AUTH_KEYS, so attack tests can mint caller tokens as a stack process would. */
  internalAuthKeys: string;
  db: Db;
  logs: string[];
  supervisor: Supervisor;
  /** Runs `project create`; `extraArgs` are appended (e.g. ['--challenge-delivery', 'service']). */
  createProject(name: string, origins?: string[], extraArgs?: string[]): Promise<ProjectJson>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Delivery settings for the challenge service; without them it delivers nothing. */
export interface StackOptions {
  smtpUrl?: string;
  emailFrom?: string;
  smsWebhookUrl?: string;
  smsWebhookSecret?: string;
  /**
   * Run the embedded store as a supervised process of its own (journaling to a temporary
   * directory), as `npm start` does, so a test can kill it; by default it runs inside the test.
   */
  storeProcess?: boolean;
  /** WEBHOOK_RETRY_SCHEDULE of the events service (seconds, comma-separated); the standard schedule by default. */
  webhookRetrySchedule?: string;
  /** OUTBOX_RELAY_HOLD_MS of connect, ceremony and challenge (a test setting): their relays publish an event only once it is this old. */
  outboxRelayHoldMs?: number;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  // The global setup built the bundles already; this rebuilds them if a source changed since
  // (vitest --watch runs the global setup only once).
  await buildBundles();
  let embedded: EmbeddedMongo | null = null;
  const logs: string[] = [];
  const supervisor = new Supervisor((line) => logs.push(line));
  let storeDir: string | null = null;
  const dbName = `e2e_${randomBytes(4).toString('hex')}`;
  let baseUri = process.env.MONGODB_URI;
  if (!baseUri && options.storeProcess) {
    const port = await freePort();
    storeDir = mkdtempSync(join(tmpdir(), 'e2e-store-'));
    await supervisor.start(embeddedMongoProcess({ port, dataDir: storeDir }), 60_000);
    baseUri = `mongodb://127.0.0.1:${port}`;
  }
  baseUri ??= (embedded = await startEmbeddedMongo({ port: 0 })).uri;
  const mongodbUri = withDatabase(baseUri, dbName);
  const ports: StackPorts = {
    ceremony: await freePort(),
    challenge: await freePort(),
    connect: await freePort(),
    events: await freePort(),
    frontend: await freePort(),
    backend: await freePort(),
  };
  const frontendUrl = `http://127.0.0.1:${ports.frontend}`;
  const backendUrl = `http://127.0.0.1:${ports.backend}`;
  const masterKey = randomBytes(32).toString('hex');
  const internalAuthKeys = newInternalAuthKey();
  const specs = stackProcesses({
    mongodbUri,
    masterKey,
    internalAuthKeys,
    ports,
    frontendApiUrl: frontendUrl,
    backendApiUrl: backendUrl,
    logLevel: 'warn',
    smtpUrl: options.smtpUrl,
    emailFrom: options.emailFrom,
    smsWebhookUrl: options.smsWebhookUrl,
    smsWebhookSecret: options.smsWebhookSecret,
    webhookRetrySchedule: options.webhookRetrySchedule,
    outboxRelayHoldMs: options.outboxRelayHoldMs,
  });
  try {
    // All at once: each process needs only the store to start. Every start is waited for before
    // a failure is reported, so none is still being spawned when the supervisor stops.
    const failed = (await Promise.allSettled(specs.map((spec) => supervisor.start(spec, 60_000)))).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (err) {
    await supervisor.stop();
    await embedded?.stop();
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
    throw new Error(`${(err as Error).message}\n${logs.join('\n')}`, { cause: err });
  }
  const client = new MongoClient(mongodbUri);
  await client.connect();
  const env = { MONGODB_URI: mongodbUri, MASTER_KEY: masterKey, FRONTEND_API_URL: frontendUrl, BACKEND_API_URL: backendUrl };
  return {
    frontendUrl,
    backendUrl,
    ports,
    env,
    internalAuthKeys,
    db: client.db(dbName),
    logs,
    supervisor,
    async createProject(name, origins = ['http://localhost:3000'], extraArgs = []) {
      const args = ['create', '--name', name, '--rp-id', 'localhost', ...origins.flatMap((o) => ['--origin', o]), ...extraArgs];
      const { stdout } = await run(process.execPath, bundleArgs('project', args), { env: { ...process.env, ...env } });
      return JSON.parse(stdout) as ProjectJson;
    },
    async stop() {
      if (storeDir) {
        // The store is one of the supervised processes: disconnect while it still answers (the
        // driver would wait out its 30 s server selection to drop a database on a stopped store),
        // and leave the data to the directory removed below.
        await client.close();
        await supervisor.stop();
        rmSync(storeDir, { recursive: true, force: true });
        return;
      }
      await supervisor.stop();
      await client.db(dbName).dropDatabase().catch(() => undefined);
      await client.close();
      await embedded?.stop();
    },
  };
}


/** Authorization header value for the backend API. */
export function basic(project: { projectID: string; apiSecret: string }): string {
  return `Basic ${Buffer.from(`${project.projectID}:${project.apiSecret}`).toString('base64')}`;
}

export const backendClientInformation = {
  remoteAddress: '::ffff:127.0.0.1',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  userVerifyingPlatformAuthenticatorAvailable: true,
  conditionalMediationAvailable: true,
};
