/**
 * WebAuthn user handles: the opaque `user.id` authenticators store with a passkey and return as
 * userHandle. One per (project, user), created at the first append and never changed, so every
 * passkey of a user carries the same handle. The raw user ID is never used as handle (the spec
 * asks for no personally identifying information in it).
 */
import { Binary, MongoServerError, type Collection, type Db } from 'mongodb';

interface WebauthnUserDocument {
  _id: string;
  projectId: string;
  userId: string;
  handle: Binary;
  createdAt: Date;
}

export interface WebauthnUserStore {
  /** The user's handle; stores `candidate` first if the user has none yet. */
  ensure(projectId: string, userId: string, candidate: Uint8Array, now: Date): Promise<Uint8Array>;
  find(projectId: string, userId: string): Promise<Uint8Array | null>;
  delete(projectId: string, userId: string): Promise<void>;
}

export const WEBAUTHN_USERS = 'webauthn_users';
const DUPLICATE_KEY = 11000;

export function mongoWebauthnUserStore(db: Db): WebauthnUserStore {
  const coll: Collection<WebauthnUserDocument> = db.collection(WEBAUTHN_USERS);
  const find = async (projectId: string, userId: string) => {
    const doc = await coll.findOne({ _id: `${projectId}/${userId}` });
    return doc ? new Uint8Array(doc.handle.buffer) : null;
  };
  return {
    async ensure(projectId, userId, candidate, now) {
      // One round trip whether or not the user has a handle yet: the insert happens only if none
      // exists, and either way the stored handle comes back.
      const upsert = () =>
        coll.findOneAndUpdate(
          { _id: `${projectId}/${userId}` },
          { $setOnInsert: { projectId, userId, handle: new Binary(candidate), createdAt: now } },
          { upsert: true, returnDocument: 'after' },
        );
      let doc;
      try {
        doc = await upsert();
      } catch (err) {
        // Two first appends raced on the same _id: the other one's handle won; read it back.
        if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
        doc = await upsert();
      }
      if (!doc) throw new Error(`webauthn_users: the upsert of ${projectId}/${userId} returned no document`);
      return new Uint8Array(doc.handle.buffer);
    },
    find,
    async delete(projectId, userId) {
      await coll.deleteOne({ projectId, userId });
    },
  };
}
