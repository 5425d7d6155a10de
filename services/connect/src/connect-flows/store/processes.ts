/** Connect processes (F5–F7 start them, the later flow calls continue them); scoped by project. */
import type { Collection, Db } from 'mongodb';
import type { IndexPlan } from '../../../../runtime/mongo.js';
import type { IdentifierType } from '../../users/index.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';

export type ConnectFlow = 'login' | 'append' | 'manage';

/** One recorded login start (F8): what the client reported, for insights and audits. */
export interface LoginStartRecord {
  at: Date;
  source: string;
  loadedMs: number;
  identifierHintAvailable?: boolean;
  oneTapMeta?: { ts: number; source: string };
  /** Whether the client presented a login connect token (its value is never stored). */
  loginConnectTokenPresented: boolean;
  /** "assertion" when options were returned, else the fallback's reason. */
  outcome: string;
}

export interface ProcessRecord {
  /** `cpr-` and 20 digits; the process token's `sub`. */
  _id: string;
  projectId: string;
  flow: ConnectFlow;
  /** Cleared processes refuse every call (ClearProcess, or the web SDK dropping a duplicate). */
  status: 'active' | 'cleared';
  /** Whether the init decided the flow may be offered (loginAllowed / appendAllowed / manageAllowed). */
  allowed: boolean;
  /** The client environment handle the process runs in (issued or confirmed at init). */
  clientEnvHandle: string;
  client: ClientSnapshot;
  userAgent: string;
  remoteAddress: string;
  invited: boolean;
  situation?: string;
  /** The user the flow is for, once known (login start, append start, manage calls). */
  userId?: string;
  /** The identifier that named the user, as typed (login) or as the connect token carries it. */
  identifier?: { type: IdentifierType; value: string };
  /** loadedMs the client reported at the last append start. */
  startLoadedMs?: number;
  /** The connect token an append start claimed. */
  appendTokenId?: string;
  loginStarts?: LoginStartRecord[];
  /** Outcome details recorded at finish (completionType, customData, loadedMs). */
  finished?: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
}

export interface ProcessStore {
  insert(record: ProcessRecord): Promise<void>;
  /** The process if it exists in the project (callers check status and expiry). */
  find(projectId: string, processId: string): Promise<ProcessRecord | null>;
  /** Sets fields of an active, unexpired process; null if it is neither (nothing written). */
  update(projectId: string, processId: string, set: Partial<ProcessRecord>, now: Date): Promise<ProcessRecord | null>;
  /** Appends a login start to an active, unexpired process (bounded list), setting fields beside it. */
  recordLoginStart(projectId: string, processId: string, start: LoginStartRecord, set: Partial<ProcessRecord>, now: Date): Promise<ProcessRecord | null>;
  /** Marks the process cleared; true if it existed. */
  clear(projectId: string, processId: string, now: Date): Promise<boolean>;
}

/** Processes stay a day past expiry for audits, then the TTL index removes them. */
const KEEP_AFTER_EXPIRY_SECONDS = 86_400;
/** A page that retries login start forever must not grow its process without bound. */
const MAX_LOGIN_STARTS = 20;

export const processIndexes: IndexPlan = {
  connect_processes: [
    { key: { expiresAt: 1 }, name: 'expires_ttl', expireAfterSeconds: KEEP_AFTER_EXPIRY_SECONDS },
    { key: { projectId: 1, createdAt: 1 }, name: 'project_created' },
  ],
};

export function mongoProcessStore(db: Db): ProcessStore {
  const coll: Collection<ProcessRecord> = db.collection('connect_processes');
  const live = (projectId: string, processId: string, now: Date) => ({ _id: processId, projectId, status: 'active' as const, expiresAt: { $gt: now } });
  return {
    async insert(record) {
      await coll.insertOne(record);
    },
    find(projectId, processId) {
      return coll.findOne({ _id: processId, projectId });
    },
    update(projectId, processId, set, now) {
      return coll.findOneAndUpdate(live(projectId, processId, now), { $set: { ...set, updatedAt: now } }, { returnDocument: 'after' });
    },
    recordLoginStart(projectId, processId, start, set, now) {
      return coll.findOneAndUpdate(
        live(projectId, processId, now),
        { $set: { ...set, updatedAt: now }, $push: { loginStarts: { $each: [start], $slice: -MAX_LOGIN_STARTS } } },
        { returnDocument: 'after' },
      );
    },
    async clear(projectId, processId, now) {
      const r = await coll.updateOne({ _id: processId, projectId }, { $set: { status: 'cleared', updatedAt: now } });
      return r.matchedCount === 1;
    },
  };
}
