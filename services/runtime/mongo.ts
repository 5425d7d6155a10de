/** MongoDB connection and start-up index creation (official driver only). */
import { MongoClient, type Db, type IndexDescription } from 'mongodb';
import type { Metrics } from './metrics.js';
import { timeStoreOperations } from './timeStoreOperations.js';

export interface Store {
  client: MongoClient;
  db: Db;
  /** Resolves true if the database answers a ping. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * How long an operation waits for a reachable database before failing (retryably: see
 * isStoreOutage). Short, so a store outage answers 503 within seconds instead of holding requests.
 */
export const STORE_SELECTION_TIMEOUT_MS = 3000;

/** Indexes a service declares for its collections; created (idempotently) at start-up. */
export type IndexPlan = Record<string, IndexDescription[]>;

/**
 * Connects and creates the indexes, after `prepare` (a service's one-time changes of documents
 * written by an older version, e.g. a field a changed index needs). With `metrics`, every store operation is timed into
 * store_operation_duration_seconds{operation=<command name>} at the collection API
 * (timeStoreOperations; the driver's command monitoring stays off: it copies every command and
 * deserializes every reply a second time).
 */
export async function connectStore(
  uri: string,
  databaseName: string,
  indexes: IndexPlan,
  metrics?: Pick<Metrics, 'storeDuration'>,
  prepare?: (db: Db) => Promise<void>,
): Promise<Store> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: STORE_SELECTION_TIMEOUT_MS, appName: databaseName });
  await client.connect();
  const plainDb = client.db(databaseName);
  const db = metrics ? timeStoreOperations(plainDb, (operation, seconds) => metrics.storeDuration.observe({ operation }, seconds)) : plainDb;
  if (prepare) await prepare(plainDb);
  for (const [collection, specs] of Object.entries(indexes)) {
    if (specs.length) await db.collection(collection).createIndexes(specs);
  }
  return {
    client,
    db,
    async ping() {
      try {
        await db.command({ ping: 1 }, { timeoutMS: 2000 });
        return true;
      } catch {
        return false;
      }
    },
    close: () => client.close(),
  };
}

/** The database name in a MongoDB URI's path, or the fallback. */
export function databaseNameOf(uri: string, fallback = 'passkeyauth'): string {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(uri);
  return match ? decodeURIComponent(match[1]) : fallback;
}

/**
 * The URI with its database path replaced and its query options kept, e.g. a test's own database
 * or a child process's. A pattern rather than URL, which rejects a seed list ("a:1,b:2").
 */
export function withDatabase(uri: string, dbName: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(?:\/[^?]*)?(\?.*)?$/, `$1/${encodeURIComponent(dbName)}$2`);
}
