/**
 * Client environments (one browser profile on one device) of the connect flows, known by the
 * handle the service issued (newClientEnvHandle). The handle is what the ceremony insights key
 * their per-environment history on, so connect only ever passes handles it issued itself.
 */
import { MongoServerError, type Collection, type Db } from 'mongodb';
import type { IndexPlan } from '../../../../runtime/mongo.js';

/** The passkey operation last completed in the environment (restored to the client as newClientState). */
export interface LastLogin {
  operationType: string;
  identifierValue: string;
  identifierType: string;
  ceremonyType: string;
  at: Date;
}

export interface ClientEnvRecord {
  /** `cle-` and 20 digits. */
  _id: string;
  projectId: string;
  /** The opaque handle the client keeps (unique per project). */
  handle: string;
  visitorId?: string;
  lastLogin?: LastLogin;
  createdAt: Date;
  lastSeenAt: Date;
}

export interface ClientEnvStore {
  /** 'duplicate' if the project already has an environment with this handle (or the ID is taken). */
  insert(record: ClientEnvRecord): Promise<'created' | 'duplicate'>;
  findByHandle(projectId: string, handle: string): Promise<ClientEnvRecord | null>;
  /** Refreshes lastSeenAt (and the visitor ID when given); null if the handle is unknown. */
  touch(projectId: string, handle: string, now: Date, visitorId?: string): Promise<ClientEnvRecord | null>;
  setLastLogin(projectId: string, handle: string, lastLogin: LastLogin): Promise<void>;
}

/** Environments not seen for 400 days are forgotten (browsers cap cookie-like state at about that). */
const FORGET_AFTER_SECONDS = 400 * 86_400;

export const clientEnvIndexes: IndexPlan = {
  connect_client_envs: [
    { key: { projectId: 1, handle: 1 }, name: 'project_handle_unique', unique: true },
    { key: { lastSeenAt: 1 }, name: 'last_seen_ttl', expireAfterSeconds: FORGET_AFTER_SECONDS },
  ],
};

const DUPLICATE_KEY = 11000;

export function mongoClientEnvStore(db: Db): ClientEnvStore {
  const coll: Collection<ClientEnvRecord> = db.collection('connect_client_envs');
  return {
    async insert(record) {
      try {
        await coll.insertOne(record);
        return 'created';
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return 'duplicate';
        throw err;
      }
    },
    findByHandle(projectId, handle) {
      return coll.findOne({ projectId, handle });
    },
    touch(projectId, handle, now, visitorId) {
      return coll.findOneAndUpdate({ projectId, handle }, { $set: { lastSeenAt: now, ...(visitorId ? { visitorId } : {}) } }, { returnDocument: 'after' });
    },
    async setLastLogin(projectId, handle, lastLogin) {
      await coll.updateOne({ projectId, handle }, { $set: { lastLogin } });
    },
  };
}
