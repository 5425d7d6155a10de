/**
 * The authentication events the application reports itself (POST /v2/users/{userID}/authEvents):
 * its own password, code and social logins and sign-ups. Bounded twice: each event expires after
 * its project's event retention (TTL on expiresAt), and a user keeps only their newest
 * MAX_AUTH_EVENTS_PER_USER (trimmed after each insert), so no report stream grows without bound.
 */
import type { Collection, Db } from 'mongodb';
import type { IndexPlan } from '../../../runtime/mongo.js';

export const AUTH_EVENTS = 'auth_events';

export type AuthEventType = 'sign_up' | 'login' | 'new_passkey_added';
export type AuthEventMethod = 'password' | 'email_otp' | 'email_link' | 'phone_otp' | 'passkey' | 'social_github' | 'social_google' | 'social_microsoft';
export type AuthEventStatus = 'success' | 'failure';

export interface AuthEventRecord {
  /** `aev-` and 20 digits. */
  _id: string;
  projectId: string;
  userId: string;
  /** The login identifier the application says the user authenticated with. */
  username: string;
  eventType: AuthEventType;
  method: AuthEventMethod;
  status: AuthEventStatus;
  /** What is kept of the client, as for ceremony events: no fingerprint, no capability details. */
  client: { userAgent: string; remoteAddress: string };
  createdAt: Date;
  /** createdAt plus the project's event retention; the TTL index removes the event then. */
  expiresAt: Date;
}

export interface AuthEventStore {
  insert(record: AuthEventRecord): Promise<void>;
  /** Removes the user's events beyond their `keep` newest; the number removed. */
  trimUser(projectId: string, userId: string, keep: number): Promise<number>;
  /** The user's newest events first, at most `limit` (what insights may read). */
  listRecent(projectId: string, userId: string, limit: number): Promise<AuthEventRecord[]>;
  deleteForUser(projectId: string, userId: string): Promise<number>;
}

export const authEventIndexes: IndexPlan = {
  [AUTH_EVENTS]: [
    // A user's events newest first: the trim after each insert, listRecent and a user's deletion.
    { key: { projectId: 1, userId: 1, createdAt: -1 }, name: 'project_user_created' },
    { key: { expiresAt: 1 }, name: 'expiry_ttl', expireAfterSeconds: 0 },
  ],
};

/** How many surplus events one trim removes at most (each insert adds one, so a few at a time suffice). */
const TRIM_BATCH = 100;

export function mongoAuthEventStore(db: Db): AuthEventStore {
  const coll: Collection<AuthEventRecord> = db.collection(AUTH_EVENTS);
  const newestFirst = { createdAt: -1, _id: -1 } as const;
  return {
    async insert(record) {
      await coll.insertOne(record);
    },
    async trimUser(projectId, userId, keep) {
      const surplus = await coll.find({ projectId, userId }, { projection: { _id: 1 } }).sort(newestFirst).skip(keep).limit(TRIM_BATCH).toArray();
      if (!surplus.length) return 0;
      const r = await coll.deleteMany({ projectId, userId, _id: { $in: surplus.map((e) => e._id) } });
      return r.deletedCount;
    },
    listRecent(projectId, userId, limit) {
      return coll.find({ projectId, userId }).sort(newestFirst).limit(limit).toArray();
    },
    async deleteForUser(projectId, userId) {
      const r = await coll.deleteMany({ projectId, userId });
      return r.deletedCount;
    },
  };
}
