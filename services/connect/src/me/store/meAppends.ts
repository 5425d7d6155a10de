/**
 * Passkey appends a signed-in user started with F3 (/v2/me/passkeys/append/start), so that F4
 * finds the ceremony again: the ceremony service binds its registration session to a process ID,
 * and F4's request names none. One pending append per session: a new F3 replaces the last one.
 */
import type { Collection, Db } from 'mongodb';
import type { IndexPlan } from '../../../../runtime/mongo.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';

export interface MeAppendRecord {
  /** The session (`sid`) that started the append; a session belongs to one user of one project. */
  _id: string;
  projectId: string;
  userId: string;
  /** `mep-` and 20 digits: the process ID the ceremony's registration session is bound to. */
  processId: string;
  /** The client environment F3 ran in; F4 reports it again so the passkey is known to come from there. */
  clientEnvHandle: string;
  client: ClientSnapshot;
  createdAt: Date;
  expiresAt: Date;
}

export interface MeAppendStore {
  /** Stores the session's pending append, replacing an earlier one. */
  put(record: MeAppendRecord): Promise<void>;
  /** The session's pending append of that user, if unexpired. */
  find(projectId: string, sessionId: string, userId: string, now: Date): Promise<MeAppendRecord | null>;
  /** Removes the pending append if it is still the one of that process (a newer F3 stays). */
  remove(projectId: string, sessionId: string, processId: string): Promise<void>;
}

export const meAppendIndexes: IndexPlan = {
  connect_me_appends: [{ key: { expiresAt: 1 }, name: 'expires_ttl', expireAfterSeconds: 0 }],
};

export function mongoMeAppendStore(db: Db): MeAppendStore {
  const coll: Collection<MeAppendRecord> = db.collection('connect_me_appends');
  return {
    async put(record) {
      // One atomic upsert by the session ID: two F3s of one session leave exactly one record.
      await coll.replaceOne({ _id: record._id, projectId: record.projectId }, record, { upsert: true });
    },
    find(projectId, sessionId, userId, now) {
      // TTL sweeps are lazy, so expiry is part of the query.
      return coll.findOne({ _id: sessionId, projectId, userId, expiresAt: { $gt: now } });
    },
    async remove(projectId, sessionId, processId) {
      await coll.deleteOne({ _id: sessionId, projectId, processId });
    },
  };
}
