/**
 * The insights module's two collections. Every document carries its projectId and every query
 * filters by it; each change is one atomic single-document operation (no transactions).
 *
 * - client_envs: one document per (projectId, key) with the users seen in it.
 * - ceremony_events: the audit trail of ceremony steps, plus the module's own "append-decided"
 *   records that history links to the append attempts they led to. Kept until the user is deleted.
 */
import { createHash } from 'node:crypto';
import { MongoServerError, type Collection, type Db, type ObjectId } from 'mongodb';
import type { IndexPlan } from '../../../../runtime/mongo.js';
import type { ClientCapabilities } from './clientCapabilities.js';
import type { AppendHistoryEvent } from './historyData.js';
import type { CeremonyEventType } from './types.js';

export const CLIENT_ENVS = 'client_envs';
export const CEREMONY_EVENTS = 'ceremony_events';

export const insightsIndexes: IndexPlan = {
  [CLIENT_ENVS]: [
    { key: { projectId: 1, key: 1 }, name: 'project_key', unique: true },
    { key: { projectId: 1, userIds: 1, lastSeen: -1 }, name: 'project_user_lastseen' },
  ],
  [CEREMONY_EVENTS]: [{ key: { projectId: 1, userId: 1, at: -1 }, name: 'project_user_at' }],
};

export interface ClientEnvSnapshot {
  userAgent: string;
  os: { name: string; version: string };
  browser: { name: string; version: string; type: string };
  restrictedBrowser: boolean;
  capabilities: ClientCapabilities;
}

export interface ClientEnvDoc extends ClientEnvSnapshot {
  _id?: ObjectId;
  projectId: string;
  key: string;
  userIds: string[];
  /** Per user (field name from userFieldName): when this user was first and last seen here. */
  seenBy: Record<string, { firstSeen: Date; lastSeen: Date }>;
  firstSeen: Date;
  lastSeen: Date;
}

export type StoredEventType = CeremonyEventType | 'append-decided';

export interface EventDoc {
  _id?: ObjectId;
  projectId: string;
  userId?: string;
  type: StoredEventType;
  situation?: string;
  processId?: string;
  credentialId?: string;
  reason?: string;
  /** Client-reported events: the client's short message code. */
  message?: string;
  trackingId?: string;
  notificationRequested?: boolean;
  at: Date;
  /** What the audit trail keeps of the client: no fingerprint, no capability details. */
  client?: { userAgent: string; remoteAddress: string; clientEnvKey: string; restrictedBrowser: boolean };
  /** append-decided only: the decision returned to the ceremony. */
  decision?: { appendAllow: boolean; tag: string; variant: string; auto: boolean; conditional: boolean; isRestrictedBrowser: boolean };
}

export interface InsightsStore {
  upsertClientEnv(projectId: string, userId: string, key: string, snapshot: ClientEnvSnapshot, now: Date): Promise<void>;
  /** Keys of the user's client environments, most recently seen first. */
  clientEnvKeysOf(projectId: string, userId: string, limit: number): Promise<string[]>;
  /** When the user was first seen in the environment, or null if never. */
  firstSeenInEnv(projectId: string, userId: string, key: string): Promise<Date | null>;
  insertEvent(event: EventDoc): Promise<void>;
  /** The user's most recent append events (decisions, starts, outcomes), newest first. */
  appendHistoryOf(projectId: string, userId: string, limit: number): Promise<AppendHistoryEvent[]>;
  forgetUser(projectId: string, userId: string): Promise<void>;
}

/**
 * The field name a user ID gets inside seenBy. IDs like "usr-123" are used as they are; anything
 * that could be read as a path ("."), an operator ("$") or is oversized is hashed instead.
 */
export function userFieldName(userId: string): string {
  return /^[A-Za-z0-9_-]{1,128}$/.test(userId) ? userId : `h-${createHash('sha256').update(userId, 'utf8').digest('base64url')}`;
}

const APPEND_EVENT_TYPES: StoredEventType[] = ['append-decided', 'append-started', 'append-succeeded', 'append-failed'];

export function createInsightsStore(db: Db): InsightsStore {
  const envs: Collection<ClientEnvDoc> = db.collection(CLIENT_ENVS);
  const events: Collection<EventDoc> = db.collection(CEREMONY_EVENTS);

  return {
    async upsertClientEnv(projectId, userId, key, snapshot, now) {
      const seen = `seenBy.${userFieldName(userId)}`;
      const upsert = () =>
        envs.findOneAndUpdate(
          { projectId, key },
          {
            $addToSet: { userIds: userId },
            $set: { ...snapshot },
            // $min/$max keep first/last seen right even when concurrent requests land out of order.
            $min: { firstSeen: now, [`${seen}.firstSeen`]: now },
            $max: { lastSeen: now, [`${seen}.lastSeen`]: now },
          },
          { upsert: true, projection: { _id: 1 } },
        );
      try {
        await upsert();
      } catch (err) {
        // Two first-time upserts of one environment can race on the unique index; the loser's
        // retry finds the winner's document and updates it.
        if (err instanceof MongoServerError && err.code === 11000) await upsert();
        else throw err;
      }
    },

    async clientEnvKeysOf(projectId, userId, limit) {
      const docs = await envs.find({ projectId, userIds: userId }, { projection: { key: 1 } }).sort({ lastSeen: -1 }).limit(limit).toArray();
      return docs.map((d) => d.key);
    },

    async firstSeenInEnv(projectId, userId, key) {
      const field = userFieldName(userId);
      const doc = await envs.findOne({ projectId, key, userIds: userId }, { projection: { [`seenBy.${field}`]: 1 } });
      return doc?.seenBy?.[field]?.firstSeen ?? null;
    },

    async insertEvent(event) {
      await events.insertOne(withoutUndefined(event));
    },

    async appendHistoryOf(projectId, userId, limit) {
      const docs = await events
        .find(
          { projectId, userId, type: { $in: APPEND_EVENT_TYPES } },
          { projection: { type: 1, at: 1, situation: 1, processId: 1, 'client.restrictedBrowser': 1, decision: 1 } },
        )
        .sort({ at: -1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => {
        const event: AppendHistoryEvent = { type: d.type as AppendHistoryEvent['type'], at: d.at };
        if (d.situation !== undefined) event.situation = d.situation;
        if (d.processId !== undefined) event.processId = d.processId;
        if (d.type === 'append-decided') {
          event.auto = d.decision?.auto === true;
          event.conditional = d.decision?.conditional === true;
          event.restrictedBrowser = d.decision?.isRestrictedBrowser === true;
        } else {
          event.restrictedBrowser = d.client?.restrictedBrowser === true;
        }
        return event;
      });
    },

    async forgetUser(projectId, userId) {
      await events.deleteMany({ projectId, userId });
      await envs.updateMany({ projectId, userIds: userId }, { $pull: { userIds: userId }, $unset: { [`seenBy.${userFieldName(userId)}`]: '' } });
      // Only environments nobody else uses go; the filter re-checks emptiness atomically, so an
      // environment another user joined in between stays.
      await envs.deleteMany({ projectId, userIds: { $size: 0 } });
    },
  };
}

/** The driver would store undefined as null; absent fields stay absent. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
