/**
 * One document per (project, user) with what the insights rules read about the user: the client
 * environments the user was seen in (at most envLimit, the least recently seen evicted), the
 * user's recent append history (the last historyLimit append events) and the passkey events the
 * application reported through the backend API (at most passkeyEventLimit; a report beyond it is
 * refused, so a flood cannot push out a blacklisting). All are bounded, so the document cannot
 * outgrow a user, and a login start reads and updates it in one operation.
 *
 * Replaces the shared `client_envs` documents of the previous design (one per environment key,
 * listing every user seen there, which grew without bound for a browser build shared by many
 * users). Nothing reads `client_envs` any more; in an existing database it can be dropped.
 */
import { createHash } from 'node:crypto';
import { MongoServerError, type Collection, type Db } from 'mongodb';

export const USER_INSIGHTS = 'user_insights';

/** What the client reported about itself in an environment, refreshed on every visit. */
export interface ClientEnvSnapshot {
  userAgent: string;
  os: { name: string; version: string };
  browser: { name: string; version: string; type: string };
  restrictedBrowser: boolean;
  /** The capabilities read from clientInformation (platformAuthenticator, hybrid, …). */
  capabilities: Record<string, boolean>;
}

/** When the user was first and last seen in one environment. */
export interface EnvVisits {
  key: string;
  firstSeen: Date;
  lastSeen: Date;
}

export type AppendHistoryType = 'append-decided' | 'append-started' | 'append-succeeded' | 'append-failed';

/** One append event as history needs it (the audit trail keeps the full event in ceremony_events). */
export interface AppendHistoryEntry {
  type: AppendHistoryType;
  at: Date;
  situation?: string;
  processId?: string;
  restrictedBrowser?: boolean;
  auto?: boolean;
  conditional?: boolean;
}

/** One passkey event the application reported (backend API passkeyEvents). */
export interface PasskeyEventEntry {
  /** "pke-…" */
  id: string;
  eventType: string;
  processId?: string;
  clientEnvId?: string;
  credentialId?: string;
  /** The application's `expires` (unix seconds), when it gave one. */
  expires?: number;
  /** When the event stops counting: `expires`, or the project's event retention. */
  expiresAt: Date;
  createdAt: Date;
}

export interface UserInsightsDoc {
  /** JSON of [projectId, userId]: a point lookup on the _id index in MongoDB and the embedded store alike. */
  _id: string;
  projectId: string;
  userId: string;
  /** Keyed by envFieldName(key). */
  envs: Record<string, EnvVisits>;
  /** Keyed like envs; kept apart so the hot read can leave the snapshots out. */
  envDetails: Record<string, ClientEnvSnapshot>;
  /** Oldest first, at most historyLimit entries. */
  history: AppendHistoryEntry[];
  /** Oldest first, at most passkeyEventLimit (absent on documents from before passkey events). */
  passkeyEvents?: PasskeyEventEntry[];
  lastSeen: Date;
}

/** The user's state as the rules read it. */
export interface UserInsightsState {
  envs: EnvVisits[];
  history: AppendHistoryEntry[];
  /** Every stored passkey event, expired ones included (the rules decide what still counts). */
  passkeyEvents: PasskeyEventEntry[];
}

/** The user's passkey events (backend API), kept in the same document the rules read. */
export interface PasskeyEventStore {
  /**
   * Adds the event unless the user already has passkeyEventLimit events (expired ones are dropped
   * first when full); false when it is still full. One guarded update (three when full).
   */
  addPasskeyEvent(projectId: string, userId: string, event: PasskeyEventEntry, now: Date): Promise<boolean>;
  /** The user's stored events, oldest first (expired ones included). */
  passkeyEvents(projectId: string, userId: string): Promise<PasskeyEventEntry[]>;
  /** Removes the event; false if the user has none with this ID. */
  deletePasskeyEvent(projectId: string, userId: string, id: string): Promise<boolean>;
}

export interface UserInsightsStore extends PasskeyEventStore {
  /**
   * Records a visit of the environment (and appends `history`, as pushHistory does) and returns
   * the state from before it: one findOneAndUpdate (plus, only when the user is over the
   * environment limit, one eviction).
   */
  visitEnv(projectId: string, userId: string, key: string, snapshot: ClientEnvSnapshot, now: Date, history?: AppendHistoryEntry[]): Promise<UserInsightsState>;
  /** Appends to the user's append history, keeping the last historyLimit entries. */
  pushHistory(projectId: string, userId: string, entries: AppendHistoryEntry[]): Promise<void>;
  forgetUser(projectId: string, userId: string): Promise<void>;
}

export interface UserInsightsLimits {
  /** Environments kept per user, the most recently seen. */
  envLimit: number;
  /** Append events kept per user, the most recent. */
  historyLimit: number;
  /** Passkey events kept per user; more are refused until some expire or are deleted. */
  passkeyEventLimit: number;
}

/**
 * The field name an environment key gets inside envs. Keys like "derived-…" or a plain handle are
 * used as they are; anything that could be read as a path ("."), an operator ("$") or is oversized
 * is hashed instead (the key itself is stored in the entry).
 */
export function envFieldName(key: string): string {
  return /^[A-Za-z0-9_-]{1,128}$/.test(key) ? key : `h-${createHash('sha256').update(key, 'utf8').digest('base64url')}`;
}

export function userInsightsId(projectId: string, userId: string): string {
  return JSON.stringify([projectId, userId]);
}

export function createUserInsightsStore(db: Db, limits: UserInsightsLimits): UserInsightsStore {
  const docs: Collection<UserInsightsDoc> = db.collection(USER_INSIGHTS);
  const filterOf = (projectId: string, userId: string) => ({ _id: userInsightsId(projectId, userId), projectId });

  /** Drops the least recently seen environments beyond the limit. */
  async function evict(projectId: string, userId: string, envs: EnvVisits[], visited: string): Promise<void> {
    const excess = envs.length - limits.envLimit;
    if (excess <= 0) return;
    const victims = envs
      .filter((e) => e.key !== visited)
      .sort((a, b) => a.lastSeen.getTime() - b.lastSeen.getTime() || (a.key < b.key ? -1 : 1))
      .slice(0, excess);
    const guard: Record<string, unknown> = filterOf(projectId, userId);
    const unset: Record<string, ''> = {};
    for (const v of victims) {
      const field = envFieldName(v.key);
      // Evicted only if not seen again meanwhile; if the guard fails the next visit re-evaluates.
      guard[`envs.${field}.lastSeen`] = v.lastSeen;
      unset[`envs.${field}`] = '';
      unset[`envDetails.${field}`] = '';
    }
    await docs.updateOne(guard, { $unset: unset });
  }

  /** Two first writes for one user can race on the _id index; the loser's retry updates the winner's document. */
  async function retryOnDuplicate<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (err instanceof MongoServerError && err.code === 11000) return op();
      throw err;
    }
  }

  return {
    async visitEnv(projectId, userId, key, snapshot, now, history = []) {
      const field = envFieldName(key);
      const before = await retryOnDuplicate(() =>
        docs.findOneAndUpdate(
          filterOf(projectId, userId),
          {
            $set: { [`envs.${field}.key`]: key, [`envDetails.${field}`]: snapshot },
            // $min/$max keep first/last seen right even when concurrent requests land out of order.
            $min: { [`envs.${field}.firstSeen`]: now },
            $max: { [`envs.${field}.lastSeen`]: now, lastSeen: now },
            // history is either appended to or, on insert, created empty: one operator per path.
            ...(history.length ? { $push: { history: { $each: history, $slice: -limits.historyLimit } }, $setOnInsert: { userId } } : { $setOnInsert: { userId, history: [] } }),
          },
          { upsert: true, returnDocument: 'before', projection: { envs: 1, history: 1, passkeyEvents: 1 } },
        ),
      );
      const envs = Object.values(before?.envs ?? {});
      const after = envs.some((e) => e.key === key) ? envs : [...envs, { key, firstSeen: now, lastSeen: now }];
      if (after.length > limits.envLimit) await evict(projectId, userId, after, key);
      return { envs, history: before?.history ?? [], passkeyEvents: before?.passkeyEvents ?? [] };
    },

    async pushHistory(projectId, userId, entries) {
      if (!entries.length) return;
      await retryOnDuplicate(() =>
        docs.updateOne(
          filterOf(projectId, userId),
          // Insertion order is time order up to concurrent requests; the slice keeps the newest.
          { $push: { history: { $each: entries, $slice: -limits.historyLimit } }, $setOnInsert: { userId, envs: {}, envDetails: {} } },
          { upsert: true },
        ),
      );
    },

    async addPasskeyEvent(projectId, userId, event, now) {
      // The guard is the cap: the document matches only while the last allowed slot is free.
      const push = () =>
        docs.updateOne(
          { ...filterOf(projectId, userId), [`passkeyEvents.${limits.passkeyEventLimit - 1}`]: { $exists: false } },
          { $push: { passkeyEvents: event }, $setOnInsert: { userId, envs: {}, envDetails: {}, history: [] } },
          { upsert: true },
        );
      const pushed = async (): Promise<boolean> => {
        try {
          await push();
          return true;
        } catch (err) {
          // The upsert met the existing document: it is full (or a first write raced this one).
          if (err instanceof MongoServerError && err.code === 11000) return false;
          throw err;
        }
      };
      if (await pushed()) return true;
      await docs.updateOne(filterOf(projectId, userId), { $pull: { passkeyEvents: { expiresAt: { $lte: now } } } });
      return pushed();
    },

    async passkeyEvents(projectId, userId) {
      const doc = await docs.findOne(filterOf(projectId, userId), { projection: { passkeyEvents: 1 } });
      return doc?.passkeyEvents ?? [];
    },

    async deletePasskeyEvent(projectId, userId, id) {
      const r = await docs.updateOne({ ...filterOf(projectId, userId), 'passkeyEvents.id': id }, { $pull: { passkeyEvents: { id } } });
      return r.modifiedCount === 1;
    },

    async forgetUser(projectId, userId) {
      await docs.deleteOne(filterOf(projectId, userId));
    },
  };
}
