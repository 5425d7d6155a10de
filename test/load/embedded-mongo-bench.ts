/**
 * Benchmark of the embedded store through the official driver, from a separate process:
 *   npm run bench:embedded-mongo -- [--sizes 1000,1000000] [--credentials 100000,1000000]
 *     [--seconds 5] [--concurrency 8] [--memory]
 * For each collection size it loads that many documents (unique index on `key`), then prints
 * operations per second for insertOne + findOne by the indexed key, and for findOneAndUpdate.
 * For each --credentials size it loads credential-shaped documents that all share one
 * `projectId` (the services' compound indexes all start with it), prints lookups per second by
 * `{projectId, credentialId}` and by `{projectId, userId}` with a limit (which stay flat as the
 * size grows only if the index is used beyond its first field), and the store's resident memory
 * per document (from /proc, so Linux only).
 * The store runs as a child process (the CLI) with a journal in a temporary data directory,
 * unless --memory. Bounded in time and count; it stops by itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient, type Collection } from 'mongodb';
import { buildCredentialDocument, CREDENTIAL_INDEXES } from './buildCredentialDocument.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,1000000' },
    credentials: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '8' },
    memory: { type: 'boolean', default: false },
  },
});
const sizes = values.sizes ? values.sizes.split(',').map(Number) : [];
const credentialSizes = values.credentials ? values.credentials.split(',').map(Number) : [];
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

/** The store's command line, found through its package name like every other use of the store. */
const STORE_CLI = createRequire(import.meta.url).resolve('@passkeyauth/embedded-mongo/cli');

async function startStore(dataDir: string | null): Promise<{ child: ChildProcess; uri: string }> {
  const args = ['--import', 'tsx', STORE_CLI, '--port', '0'];
  if (dataDir) args.push('--data-dir', dataDir);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const uri = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on (mongodb:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`store exited with ${code}`)));
  });
  return { child, uri };
}

/** Runs `op` from `concurrency` workers until the time is up; returns operations per second. */
async function measure(op: (i: number) => Promise<void>): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) await op(done++);
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

async function load(coll: Collection, n: number): Promise<void> {
  const batch = 10_000;
  for (let i = 0; i < n; i += batch) {
    const docs = Array.from({ length: Math.min(batch, n - i) }, (_, j) => ({ key: `k${i + j}`, n: 0, payload: 'x'.repeat(40) }));
    await coll.insertMany(docs, { ordered: false });
  }
}

/** Resident set size of a process in bytes, or NaN where /proc is not available. */
function residentBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

const PROJECT = 'prj-0123456789abcdef';
const USERS = 1000;

async function loadCredentials(coll: Collection, n: number): Promise<void> {
  const batch = 5_000;
  for (let i = 0; i < n; i += batch) {
    const docs = Array.from({ length: Math.min(batch, n - i) }, (_, j) => buildCredentialDocument(i + j, PROJECT, USERS));
    await coll.insertMany(docs, { ordered: false });
  }
}

async function benchCredentials(db: ReturnType<MongoClient['db']>, pid: number, size: number): Promise<void> {
  const coll = db.collection(`credentials_${size}`);
  await coll.drop().catch(() => undefined);
  await coll.createIndexes(CREDENTIAL_INDEXES);
  const rssBefore = residentBytes(pid);
  const t0 = Date.now();
  await loadCredentials(coll, size);
  const rssAfter = residentBytes(pid);
  console.log(`credentials ${size}: loaded in ${((Date.now() - t0) / 1000).toFixed(1)}s, store rss +${((rssAfter - rssBefore) / size).toFixed(0)} B per document`);
  const byCredential = await measure(async () => {
    const i = Math.floor(Math.random() * size);
    const { credentialId } = buildCredentialDocument(i, PROJECT, USERS);
    if (!(await coll.findOne({ projectId: PROJECT, credentialId }))) throw new Error(`credential ${i} not found`);
  });
  console.log(`credentials ${size}: findOne {projectId, credentialId}           ${byCredential.toFixed(0)} ops/s (${(1000 / byCredential).toFixed(3)} ms each)`);
  const byUser = await measure(async () => {
    const userId = `usr-${Math.floor(Math.random() * USERS).toString().padStart(10, '0')}`;
    const page = await coll.find({ projectId: PROJECT, userId }).limit(10).toArray();
    if (page.length === 0) throw new Error(`no credentials for ${userId}`);
  });
  console.log(`credentials ${size}: find {projectId, userId} limit 10          ${byUser.toFixed(0)} ops/s (${(1000 / byUser).toFixed(3)} ms each)`);
  await coll.drop();
}

const dataDir = values.memory ? null : mkdtempSync(join(tmpdir(), 'embedded-mongo-bench-'));
const { child, uri } = await startStore(dataDir);
const client = new MongoClient(uri, { maxPoolSize: concurrency * 2 });
try {
  await client.connect();
  const db = client.db('bench');
  console.log(`embedded store ${values.memory ? '(memory only)' : '(journaled, fsync per write batch)'}; ${concurrency} concurrent clients, ${seconds}s per measurement`);
  for (const size of sizes) {
    const coll = db.collection(`docs_${size}`);
    await coll.drop().catch(() => undefined);
    await coll.createIndex({ key: 1 }, { unique: true });
    const t0 = Date.now();
    await load(coll, size);
    console.log(`size ${size}: loaded in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
    let extra = 0;
    const insertFind = await measure(async () => {
      const key = `new-${extra++}`;
      await coll.insertOne({ key, n: 0 });
      const found = await coll.findOne({ key });
      if (!found) throw new Error(`inserted ${key} not found`);
    });
    console.log(`size ${size}: insertOne+findOne by indexed key  ${insertFind.toFixed(0)} pairs/s`);
    const fau = await measure(async () => {
      const key = `k${Math.floor(Math.random() * size)}`;
      const r = await coll.findOneAndUpdate({ key }, { $inc: { n: 1 } }, { returnDocument: 'after' });
      if (!r) throw new Error(`${key} not found`);
    });
    console.log(`size ${size}: findOneAndUpdate by indexed key     ${fau.toFixed(0)} ops/s`);
    await coll.drop();
  }
  for (const size of credentialSizes) await benchCredentials(db, child.pid!, size);
} finally {
  await client.close();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
