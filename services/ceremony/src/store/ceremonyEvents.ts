/**
 * The audit trail of ceremony steps (and the insights' own "append-decided" records): written in
 * batches (see batchEventWrites), each event expiring after its project's retention period
 * (TTL on expiresAt). History for the rules is not read from here but from the user's bounded
 * insights document (userInsights.ts), so no hot query reads this collection.
 */
import { MongoBulkWriteError, MongoServerError, ObjectId, type Collection, type Db } from 'mongodb';

export const CEREMONY_EVENTS = 'ceremony_events';

export interface EventDoc {
  /** Set before the first write attempt, so a retried batch cannot store an event twice. */
  _id?: ObjectId;
  projectId: string;
  userId?: string;
  /** A ceremony event type ("login-started", …) or "append-decided". */
  type: string;
  situation?: string;
  processId?: string;
  credentialId?: string;
  reason?: string;
  /** Client-reported events: the client's short message code. */
  message?: string;
  trackingId?: string;
  notificationRequested?: boolean;
  at: Date;
  /** When the TTL sweep removes the event: `at` plus the project's retention. */
  expiresAt?: Date;
  /** What the audit trail keeps of the client: no fingerprint, no capability details. */
  client?: { userAgent: string; remoteAddress: string; clientEnvKey: string; restrictedBrowser: boolean };
  /** append-decided only: the decision returned to the ceremony. */
  decision?: { appendAllow: boolean; tag: string; variant: string; auto: boolean; conditional: boolean; isRestrictedBrowser: boolean };
}

export interface CeremonyEventStore {
  /** Inserts the events; those already stored by an earlier attempt (same _id) are skipped. */
  insertMany(events: EventDoc[]): Promise<void>;
  forgetUser(projectId: string, userId: string): Promise<void>;
}

export function createCeremonyEventStore(db: Db): CeremonyEventStore {
  const events: Collection<EventDoc> = db.collection(CEREMONY_EVENTS);
  return {
    async insertMany(docs) {
      if (!docs.length) return;
      // On the caller's objects, so a retry of the same batch sends the same IDs.
      for (const doc of docs) doc._id ??= new ObjectId();
      try {
        await events.insertMany(docs.map(withoutUndefined), { ordered: false });
      } catch (err) {
        // A retry after a lost acknowledgement finds its events stored already: that is success.
        if (onlyDuplicates(err)) return;
        throw err;
      }
    },
    async forgetUser(projectId, userId) {
      await events.deleteMany({ projectId, userId });
    },
  };
}

function onlyDuplicates(err: unknown): boolean {
  if (err instanceof MongoBulkWriteError) {
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    return errors.length > 0 && errors.every((e) => e.code === 11000) && !err.writeConcernError;
  }
  return err instanceof MongoServerError && err.code === 11000;
}

/** The driver would store undefined as null; absent fields stay absent. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
