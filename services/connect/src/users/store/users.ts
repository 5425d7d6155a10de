/** User documents in MongoDB; every query is scoped by project. */
import type { Collection, Db, Filter } from 'mongodb';
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
  /**
   * Set on a user the self-service sign-up created, until a sign-up or login of theirs completes
   * (a passkey or a code proved the person and a session started): such a user is not yet an
   * account, and connect records no event for it; user.created is recorded when it is removed.
   * Absent on every other user (and on sign-up users written before it existed).
   */
  openSignup?: true;
  createdAt: Date;
  updatedAt: Date;
}

export interface UserChange {
  fullName?: string;
  unsetFullName?: boolean;
  status?: UserStatus;
  completeSignup?: boolean;
}

/** The fields a user event states, as read before a change: the change applies only if they still hold. */
export interface UserFieldsGuard {
  status: UserStatus;
  fullName: string | undefined;
  openSignup: boolean;
}

export interface UserStore {
  insert(record: UserRecord): Promise<void>;
  find(projectId: string, userId: string): Promise<UserRecord | null>;
  /** Sets the status of the project's user; null if there is none. */
  updateStatus(projectId: string, userId: string, status: UserStatus, now: Date): Promise<UserRecord | null>;
  /**
   * Sets the fields given (`unsetFullName` removes the name, `completeSignup` removes openSignup) in
   * one update; null if there is no such user or, with `expected`, if its status, name and openSignup
   * are no longer those (a concurrent change won; the caller reads again).
   */
  update(projectId: string, userId: string, change: UserChange, now: Date, expected?: UserFieldsGuard): Promise<UserRecord | null>;
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
    update(projectId, userId, change, now, expected) {
      const set: Partial<UserRecord> = { updatedAt: now };
      if (change.fullName !== undefined) set.fullName = change.fullName;
      if (change.status !== undefined) set.status = change.status;
      const unset: Record<string, ''> = {};
      if (change.unsetFullName) unset.fullName = '';
      if (change.completeSignup) unset.openSignup = '';
      const update = Object.keys(unset).length > 0 ? { $set: set, $unset: unset } : { $set: set };
      const guard = expected
        ? {
            status: expected.status,
            fullName: expected.fullName === undefined ? { $exists: false } : expected.fullName,
            openSignup: expected.openSignup ? true : { $exists: false },
          }
        : {};
      return coll.findOneAndUpdate({ _id: userId, projectId, ...guard } as Filter<UserRecord>, update, { returnDocument: 'after' });
    },
    async delete(projectId, userId) {
      const r = await coll.deleteOne({ _id: userId, projectId });
      return r.deletedCount === 1;
    },
  };
}
