/**
 * Identifier verifications a signed-in user started with F11 (/v2/me/identifier/verify/start):
 * which challenge of the challenge service carries the code, so the finish can check it. One per
 * identifier: a new start replaces the last one (its code no longer counts here).
 */
import type { Collection, Db } from 'mongodb';
import type { IndexPlan } from '../../../../runtime/mongo.js';

export interface IdentifierVerificationRecord {
  /** The identifier (`ide-…`) being verified. */
  _id: string;
  projectId: string;
  userId: string;
  /** The value the code was sent to; a finish for a changed identifier is refused. */
  identifierValue: string;
  /** `cha-…`: the challenge service's challenge. */
  challengeId: string;
  createdAt: Date;
  /** Kept past the challenge's own expiry, so a late finish hears "expired" from the challenge service. */
  expiresAt: Date;
}

export interface IdentifierVerificationStore {
  put(record: IdentifierVerificationRecord): Promise<void>;
  find(projectId: string, userId: string, identifierId: string, now: Date): Promise<IdentifierVerificationRecord | null>;
  /** Removes the verification if it is still the one of that challenge (a newer start stays); true if it was. */
  remove(projectId: string, identifierId: string, challengeId: string): Promise<boolean>;
}

export const identifierVerificationIndexes: IndexPlan = {
  connect_identifier_verifications: [{ key: { expiresAt: 1 }, name: 'expires_ttl', expireAfterSeconds: 0 }],
};

export function mongoIdentifierVerificationStore(db: Db): IdentifierVerificationStore {
  const coll: Collection<IdentifierVerificationRecord> = db.collection('connect_identifier_verifications');
  return {
    async put(record) {
      await coll.replaceOne({ _id: record._id, projectId: record.projectId }, record, { upsert: true });
    },
    find(projectId, userId, identifierId, now) {
      return coll.findOne({ _id: identifierId, projectId, userId, expiresAt: { $gt: now } });
    },
    async remove(projectId, identifierId, challengeId) {
      const r = await coll.deleteOne({ _id: identifierId, projectId, challengeId });
      return r.deletedCount === 1;
    },
  };
}
