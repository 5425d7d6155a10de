/**
 * Passkeys (WebAuthn credentials) in MongoDB. The credential ID is unique per project (unique
 * index), so the same authenticator credential can never be registered twice in a project, and a
 * credential of project A is never found from project B: every query filters by project.
 */
import { Binary, MongoServerError, type Collection, type Db } from 'mongodb';

export interface CredentialRecord {
  /** "cre-…": the passkey's public ID. */
  _id: string;
  projectId: string;
  userId: string;
  /** The user name the passkey was created with. */
  username: string;
  /** The WebAuthn credential ID, base64url without padding. */
  credentialId: string;
  /** The COSE-encoded public key. */
  publicKey: Uint8Array;
  /**
   * The user's WebAuthn user handle (base64url) as the registration offered it; absent on passkeys
   * stored before it was kept here (then webauthn_users has it).
   */
  userHandle?: string;
  /** COSE algorithm of the key, e.g. -7 (ES256), -8 (EdDSA), -257 (RS256). */
  algorithm: number;
  /** The authenticator's signature counter as last seen (0: the authenticator keeps none). */
  counter: number;
  transports: string[];
  /** 8-4-4-4-12 lower-case hex. */
  aaguid: string;
  backupEligible: boolean;
  backupState: boolean;
  /** Attestation statement format of the registration ("none", "packed", …). */
  attestationFormat: string;
  createdAt: Date;
  lastUsedAt: Date;
  /** The client environment the passkey was created in (insights' key). */
  clientEnvKey: string;
  sourceOS: string;
  sourceBrowser: string;
  status: 'active';
  /** Set when a login showed a signature counter that went backwards: a copy of the key may exist. */
  cloneDetectedAt?: Date;
  /**
   * The application asked (B3 sendNotification) to tell the user that this passkey was added. Kept
   * with the passkey so the notification delivery can find the requests it has to serve.
   */
  notificationRequested: boolean;
}

type CredentialDocument = Omit<CredentialRecord, 'publicKey'> & { publicKey: Binary };

export type CredentialSortField = 'createdAt' | 'lastUsedAt';

export interface CredentialPageQuery {
  projectId: string;
  userId: string;
  sort: { field: CredentialSortField; direction: 'asc' | 'desc' };
  skip: number;
  limit: number;
}

/** The new state of a credential after a verified login. */
export interface CredentialUse {
  counter: number;
  backupState: boolean;
  lastUsedAt: Date;
}

export interface CredentialStore {
  /** "duplicate" when the project already has a credential with this credential ID. */
  insert(record: CredentialRecord): Promise<'inserted' | 'duplicate'>;
  findByCredentialId(projectId: string, credentialId: string): Promise<CredentialRecord | null>;
  /** The user's passkey with this "cre-…" ID in the project, or null. */
  findForUser(projectId: string, userId: string, id: string): Promise<CredentialRecord | null>;
  listForUser(projectId: string, userId: string): Promise<CredentialRecord[]>;
  page(query: CredentialPageQuery): Promise<{ items: CredentialRecord[]; total: number }>;
  /**
   * Saves a login's counter, backup state and time, only if the stored counter still allows it:
   * strictly below the new counter, or 0 when the new counter is 0 (an authenticator without a
   * counter). Returns the updated record, or null if the guard (or the credential) is gone.
   */
  recordUse(projectId: string, id: string, use: CredentialUse, opts?: { refuseFlagged?: boolean }): Promise<CredentialRecord | null>;
  /** Marks the passkey as possibly cloned (once: the first detection's time is kept). */
  flagClone(projectId: string, id: string, at: Date): Promise<void>;
  deleteOne(projectId: string, userId: string, id: string): Promise<boolean>;
  deleteForUser(projectId: string, userId: string): Promise<number>;
}

export const CREDENTIALS = 'credentials';
const DUPLICATE_KEY = 11000;

function toRecord(doc: CredentialDocument): CredentialRecord {
  return { ...doc, publicKey: new Uint8Array(doc.publicKey.buffer) };
}

export function mongoCredentialStore(db: Db): CredentialStore {
  const coll: Collection<CredentialDocument> = db.collection(CREDENTIALS);
  return {
    async insert(record) {
      try {
        await coll.insertOne({ ...record, publicKey: new Binary(record.publicKey) });
        return 'inserted';
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return 'duplicate';
        throw err;
      }
    },
    async findByCredentialId(projectId, credentialId) {
      const doc = await coll.findOne({ projectId, credentialId });
      return doc ? toRecord(doc) : null;
    },
    async findForUser(projectId, userId, id) {
      const doc = await coll.findOne({ _id: id, projectId, userId });
      return doc ? toRecord(doc) : null;
    },
    async listForUser(projectId, userId) {
      const docs = await coll.find({ projectId, userId }).sort({ createdAt: 1, _id: 1 }).toArray();
      return docs.map(toRecord);
    },
    async page(q) {
      const filter = { projectId: q.projectId, userId: q.userId };
      const dir = q.sort.direction === 'asc' ? 1 : -1;
      const [items, total] = await Promise.all([
        coll.find(filter).sort({ [q.sort.field]: dir, _id: dir }).skip(q.skip).limit(q.limit).toArray(),
        coll.countDocuments(filter),
      ]);
      return { items: items.map(toRecord), total };
    },
    async recordUse(projectId, id, use, opts = {}) {
      // The guard is the counter rule itself, evaluated atomically at write time: two logins racing
      // with the same or lower counter cannot both be saved. Under clone blocking, a passkey flagged
      // meanwhile is not saved either.
      const counterGuard = use.counter > 0 ? { $lt: use.counter } : 0;
      const doc = await coll.findOneAndUpdate(
        { _id: id, projectId, counter: counterGuard, ...(opts.refuseFlagged ? { cloneDetectedAt: { $exists: false } } : {}) },
        { $set: { counter: use.counter, backupState: use.backupState, lastUsedAt: use.lastUsedAt } },
        { returnDocument: 'after' },
      );
      return doc ? toRecord(doc) : null;
    },
    async flagClone(projectId, id, at) {
      await coll.updateOne({ _id: id, projectId, cloneDetectedAt: { $exists: false } }, { $set: { cloneDetectedAt: at } });
    },
    async deleteOne(projectId, userId, id) {
      const r = await coll.deleteOne({ _id: id, projectId, userId });
      return r.deletedCount === 1;
    },
    async deleteForUser(projectId, userId) {
      const r = await coll.deleteMany({ projectId, userId });
      return r.deletedCount;
    },
  };
}
