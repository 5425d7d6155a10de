/**
 * --scale N: login p50 with 1,000 stored passkeys in one project, then with N. One real
 * registration through the API makes the template documents (seedPasskeys), 999 copies make 1,000,
 * a login of a seeded user proves the copies right, then logins of seeded users are measured; then
 * the project is seeded up to N and the same is measured again with users from the new part.
 */
import { MongoClient } from 'mongodb';
import type { ProjectCredentials } from '../../services/connect/src/cli/projectAdmin.js';
import { basic } from '../kit/startStack.js';
import type { ScaleResult } from './benchResults.js';
import { createJsonClient } from './createJsonClient.js';
import type { ScenarioPlan } from './defineScenarios.js';
import { measureStackRun, type LoopOptions, type Probe } from './measureScenario.js';
import { SCALE_BASE } from './parseBenchArgs.js';
import { performLogin } from './performLogin.js';
import { readCpuSeconds, readMemoryMb, readWrittenBytes } from './readProcessStats.js';
import { clientInformationFor, createUser, appendPasskey, type BenchTarget, type PasskeyUser } from './registerPasskeyUser.js';
import { createSeeder, readTemplate } from './seedPasskeys.js';
import type { BenchStack } from './startBenchStack.js';

export interface ScaleOptions {
  passkeys: number;
  vus: number;
  loop: LoopOptions;
  /** The stack the bench started, or null for --url (then MONGODB_URI must name the stack's database). */
  stack: BenchStack | null;
  backendUrl: string;
  /** --url: the given project (seeded into); with a started stack a fresh project is made. */
  project: ProjectCredentials | null;
  probe: () => Probe;
  tag: string;
  say: (line: string) => void;
}

export async function runScaleComparison(o: ScaleOptions): Promise<ScaleResult> {
  if (o.vus > SCALE_BASE - 1) throw new Error(`--scale logs in ${o.vus} distinct seeded users, at most ${SCALE_BASE - 1}`);
  const mongodbUri = o.stack?.mongodbUri ?? process.env.MONGODB_URI;
  if (!mongodbUri) throw new Error('--scale with --url needs MONGODB_URI naming the stack database, to seed into');
  const project = o.project ?? (await o.stack!.createProject(`bench-${o.tag}-scale`));
  const origin = project.origins[0];
  const target: BenchTarget = { client: createJsonClient(o.backendUrl, basic(project), o.vus + 4), origin };
  const client = new MongoClient(mongodbUri);
  await client.connect();
  try {
    const db = client.db();
    // The template: one registration through the API, in a client environment of its own.
    const envKey = `bench-env-${o.tag}-template`;
    const clientInformation = clientInformationFor(envKey);
    const userID = await createUser(target, `Bench ${o.tag} template`);
    const registered = await appendPasskey(target, userID, `template-${o.tag}@bench.example`, clientInformation);
    const template = await readTemplate(db, project.projectID, { userID, clientInformation, ...registered }, envKey);
    const seeder = createSeeder(db, template, origin, o.tag);

    // Seeded users 0 … SCALE_BASE-2 plus the template make SCALE_BASE; the virtual users are spread over them.
    const firstCount = SCALE_BASE - 1;
    const spread = (from: number, to: number) => new Set(Array.from({ length: o.vus }, (_, k) => from + Math.floor((k * (to - from)) / o.vus)));
    const baseIndexes = spread(0, firstCount);
    const t0 = Date.now();
    const baseUsers = await seeder.seed(0, firstCount, baseIndexes);
    let seedMs = Date.now() - t0;
    const baseStorePid = o.stack?.embeddedStore ? o.probe().pids.mongo : undefined;
    if (baseStorePid) await waitForIdle(baseStorePid);
    const check = [...baseUsers.values()][0];
    await performLogin(target, check, 'bench-seed-check');
    const seedCheck = `login (B4 + B5) of seeded user ${check.userID} with passkey ${check.credential.id.slice(0, 12)}… succeeded`;
    o.say(`scale: ${SCALE_BASE} stored passkeys; ${seedCheck}`);
    const base = await measureStackRun(fixedUsers([...baseUsers.values()]), target, o.probe(), o.loop);

    const storePid = o.stack?.embeddedStore ? o.probe().pids.mongo : undefined;
    const rssBefore = storePid ? readMemoryMb(storePid)?.current : undefined;
    o.say(`scale: seeding up to ${o.passkeys.toLocaleString('en-US')} stored passkeys…`);
    const t1 = Date.now();
    const scaledIndexes = spread(firstCount, o.passkeys - 1);
    const scaledUsers = await seeder.seed(firstCount, o.passkeys - 1, scaledIndexes);
    seedMs += Date.now() - t1;
    if (storePid) o.say(`scale: store settled ${(await waitForIdle(storePid)).toFixed(1)} s after seeding`);
    const rssAfter = storePid ? readMemoryMb(storePid)?.current : undefined;
    // Every insertMany succeeded (unordered, so a single failed document throws): the project holds
    // exactly this many. countDocuments would make the embedded store read a million documents in
    // one go, holding every other request (and the driver's heartbeat) up for half a minute.
    const stored = o.passkeys;
    o.say(`scale: ${stored.toLocaleString('en-US')} passkeys stored in project ${project.projectID}; measuring…`);
    const scaled = await measureStackRun(fixedUsers([...scaledUsers.values()]), target, o.probe(), o.loop);
    target.client.close();
    return {
      passkeys: stored,
      baseP50Ms: base.latency.p50,
      scaledP50Ms: scaled.latency.p50,
      ratio: scaled.latency.p50 / base.latency.p50,
      base,
      scaled,
      seedSeconds: seedMs / 1000,
      storeRssMbAfterSeed: rssAfter ?? null,
      storeBytesPerPasskey: rssBefore !== undefined && rssAfter !== undefined ? ((rssAfter - rssBefore) * 2 ** 20) / (stored - SCALE_BASE) : null,
      seedCheck,
    };
  } finally {
    await client.close();
  }
}

/**
 * Waits until the store process is idle: under 20 % of a core and under 8 MiB written to disk
 * in each of two consecutive seconds, at most five minutes. The embedded store writes a snapshot
 * after bulk inserts (at a million passkeys, 3.5 GB in about a minute and a half, with pauses
 * while it syncs); measuring during that would time the snapshot, not the logins. Returns the
 * seconds waited.
 */
async function waitForIdle(pid: number): Promise<number> {
  const started = Date.now();
  let cpu = readCpuSeconds(pid);
  let written = readWrittenBytes(pid) ?? 0;
  let quietSeconds = 0;
  while (cpu !== null && quietSeconds < 2 && Date.now() - started < 300_000) {
    await new Promise((r) => setTimeout(r, 1000));
    const nowCpu = readCpuSeconds(pid);
    const nowWritten = readWrittenBytes(pid) ?? written;
    if (nowCpu === null) break;
    quietSeconds = nowCpu - cpu < 0.2 && nowWritten - written < 8 * 2 ** 20 ? quietSeconds + 1 : 0;
    cpu = nowCpu;
    written = nowWritten;
  }
  return (Date.now() - started) / 1000;
}

/** Logins of the given users, one per virtual user. */
function fixedUsers(users: PasskeyUser[]): ScenarioPlan<PasskeyUser> {
  return {
    prepare: async () => users,
    iterate: (target, user, vu) => performLogin(target, user, `bench-scale-${vu}`),
  };
}
