/** User documents in MongoDB; every query is scoped by project. */
import type { Collection, Db } from 'mongodb';
import type { IndexPlan } from '../../../../runtime/mongo.js';

export type UserStatus = 'pending' | 'active' | 'disabled';
/**
 * Who created the user. `signup`: the self-service sign-up (`/v2/auth/signup/init`), from a browser
 * nobody vouched for; only such a user, abandoned, is ever released (auth-flows'
 * releaseAbandonedSignup). `application`: the application's server (backend API, connect tokens).
 * Missing on users written before origins were recorded: treated as `application`, never released.
 */
export type UserOrigin = 'signup' | 'application';

export interface UserRecord {
  /** `usr-` and 20 digits. */
  _id: string;
  projectId: string;
  fullName?: string;
  status: UserStatus;
  explicitWebauthnId?: string;
  origin?: UserOrigin;
  createdAt: Date;
  updatedAt: Date;
}

export interface UserStore {
  insert(record: UserRecord): Promise<void>;
  find(projectId: string, userId: string): Promise<UserRecord | null>;
  /** Sets the status of the project's user; null if there is none. */
  updateStatus(projectId: string, userId: string, status: UserStatus, now: Date): Promise<UserRecord | null>;
  /** Sets (or, with undefined, removes) the full name of the project's user; null if there is none. */
  updateFullName(projectId: string, userId: string, fullName: string | undefined, now: Date): Promise<UserRecord | null>;
  /** Sets the fields given (a fullName of undefined in `unsetFullName` removes it) in one update; null if there is no such user. */
  update(projectId: string, userId: string, change: { fullName?: string; unsetFullName?: boolean; status?: UserStatus }, now: Date): Promise<UserRecord | null>;
  /** True if the user existed in the project and is now gone. */
  delete(projectId: string, userId: string): Promise<boolean>;
}

export const userIndexes: IndexPlan = {
  // Lookups are by _id plus projectId (the _id index serves them); this one serves per-project listing and audits.
  users: [{ key: { projectId: 1, createdAt: 1 }, name: 'project_created' }],
};

export function mongoUserStore(db: Db): UserStore {
  const coll: Collection<UserRecord> = db.collection('users');
  return {
    async insert(record) {
      await coll.insertOne(record);
    },
    find(projectId, userId) {
      return coll.findOne({ _id: userId, projectId });
    },
    updateStatus(projectId, userId, status, now) {
      return coll.findOneAndUpdate({ _id: userId, projectId }, { $set: { status, updatedAt: now } }, { returnDocument: 'after' });
    },
    updateFullName(projectId, userId, fullName, now) {
      const update = fullName === undefined ? { $set: { updatedAt: now }, $unset: { fullName: '' as const } } : { $set: { fullName, updatedAt: now } };
      return coll.findOneAndUpdate({ _id: userId, projectId }, update, { returnDocument: 'after' });
    },
    update(projectId, userId, change, now) {
      const set: Partial<UserRecord> = { updatedAt: now };
      if (change.fullName !== undefined) set.fullName = change.fullName;
      if (change.status !== undefined) set.status = change.status;
      const update = change.unsetFullName ? { $set: set, $unset: { fullName: '' as const } } : { $set: set };
      return coll.findOneAndUpdate({ _id: userId, projectId }, update, { returnDocument: 'after' });
    },
    async delete(projectId, userId) {
      const r = await coll.deleteOne({ _id: userId, projectId });
      return r.deletedCount === 1;
    },
  };
}
