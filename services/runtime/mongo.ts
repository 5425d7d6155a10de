/** MongoDB connection and start-up index creation (official driver only). */
import { MongoClient, type Db, type IndexDescription } from 'mongodb';

export interface Store {
  client: MongoClient;
  db: Db;
  /** Resolves true if the database answers a ping. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Indexes a service declares for its collections; created (idempotently) at start-up. */
export type IndexPlan = Record<string, IndexDescription[]>;

export async function connectStore(uri: string, databaseName: string, indexes: IndexPlan): Promise<Store> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000, appName: databaseName });
  await client.connect();
  const db = client.db(databaseName);
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
