/** The client environment store reports a taken handle as a value, and resolveClientEnv draws again on it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/kit/openTestDatabase.js';
import { resolveClientEnv } from '../src/shared/domain/resolveClientEnv.js';
import { clientEnvIndexes, mongoClientEnvStore, type ClientEnvRecord, type ClientEnvStore } from '../src/shared/store/clientEnvs.js';

let db: TestDatabase;
let store: ClientEnvStore;
beforeAll(async () => {
  db = await openTestDatabase('connect_client_envs_test', clientEnvIndexes);
  store = mongoClientEnvStore(db.store.db);
});
afterAll(async () => db?.close());

const now = new Date('2026-01-01T00:00:00Z');
const record = (id: string, projectId: string, handle: string): ClientEnvRecord => ({ _id: id, projectId, handle, createdAt: now, lastSeenAt: now });

describe('mongoClientEnvStore.insert', () => {
  it("answers 'duplicate' for a handle the project already has, and stores nothing", async () => {
    expect(await store.insert(record('cle-1', 'pro-1', 'h1'))).toBe('created');
    expect(await store.insert(record('cle-2', 'pro-1', 'h1'))).toBe('duplicate');
    expect((await store.findByHandle('pro-1', 'h1'))?._id).toBe('cle-1');
    // The handle is unique per project only.
    expect(await store.insert(record('cle-3', 'pro-2', 'h1'))).toBe('created');
  });
});

describe('resolveClientEnv', () => {
  it("draws a new handle when the store answers 'duplicate'", async () => {
    const tried: string[] = [];
    const colliding: ClientEnvStore = {
      ...store,
      async insert(env) {
        tried.push(env.handle);
        return tried.length === 1 ? 'duplicate' : store.insert(env);
      },
    };
    const { env, issued } = await resolveClientEnv({ clientEnvs: colliding, now: () => now }, 'pro-3', undefined, undefined);
    expect(issued).toBe(true);
    expect(tried).toHaveLength(2);
    expect(env.handle).toBe(tried[1]);
    expect((await store.findByHandle('pro-3', env.handle))?._id).toBe(env._id);
  });
});
