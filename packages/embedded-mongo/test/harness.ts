/**
 * Test target: the embedded store by default, or a real MongoDB when `MONGODB_URI` is set, so
 * the same suite shows where the two differ. Each test file gets its own database.
 */
import { MongoClient, type Collection, type Db, type MongoServerError } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedMongo, type EmbeddedMongo } from '../src/index.js';

export interface Target {
  uri: string;
  client: MongoClient;
  db: Db;
  /** True against the embedded store (tests of its own internals, like restarts, need it). */
  embedded: boolean;
  close(): Promise<void>;
}

export const realMongoUri = process.env.MONGODB_URI;

/**
 * EMBEDDED_SPILL_ALL=1 runs the embedded store with a data directory and no document cache, so
 * every stored document is read back from its spill file (spillDocuments.ts): the same suites
 * then check that path too.
 */
const spillAll = process.env.EMBEDDED_SPILL_ALL === '1';

export async function openTarget(): Promise<Target> {
  let store: EmbeddedMongo | null = null;
  const dataDir = spillAll && !realMongoUri ? mkdtempSync(join(tmpdir(), 'spill-all-')) : undefined;
  const uri = realMongoUri ?? (store = await startEmbeddedMongo({ port: 0, dataDir, cacheBytes: 0 })).uri;
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  await client.connect();
  const db = client.db(`t_${randomBytes(4).toString('hex')}`);
  return {
    uri,
    client,
    db,
    embedded: store !== null,
    async close() {
      await db.dropDatabase().catch(() => undefined);
      await client.close();
      await store?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Documents of any shape, `_id` of any type (the driver's typings otherwise assume ObjectId ids). */
 
export type Loose = any;

/** A factory of fresh, uniquely named collections for one test file's target. */
export function collections(target: () => Target): (name: string) => Collection<Loose> {
  let seq = 0;
  return (name) => target().db.collection<Loose>(`${name}_${++seq}`);
}

/** The error a driver call fails with; fails the test if the call succeeds. */
export async function failure(p: Promise<unknown>): Promise<MongoServerError> {
  try {
    await p;
  } catch (err) {
    return err as MongoServerError;
  }
  throw new Error('expected the operation to fail');
}
