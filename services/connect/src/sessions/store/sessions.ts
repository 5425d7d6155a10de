/**
 * Sessions of signed-in users and their refresh tokens, in two collections; every query is scoped
 * by project and every state change is one atomic single-document operation.
 *
 * A refresh token is stored only as its hex SHA-256 (the document ID), so a database dump yields no
 * usable token. Tokens are rotated on every use: the presented one goes from "active" to "rotated"
 * (one guarded findOneAndUpdate, so of two concurrent refreshes only one wins) and a new one is
 * inserted. Rotated tokens are kept until they expire, which is what lets a reuse be recognized.
 */
import type { Collection, Db } from 'mongodb';
import type { IndexPlan } from '../../../../runtime/mongo.js';

export type SessionStatus = 'active' | 'revoked';

/** Why a session ended early: the user logged out, a refresh token was reused, or the user went away. */
export type SessionRevokeReason = 'logout' | 'refresh_token_reuse' | 'user_unavailable';

export interface SessionRecord {
  /** `ses-` and 20 digits; the session token's `sid`. */
  _id: string;
  projectId: string;
  userId: string;
  status: SessionStatus;
  revokeReason?: SessionRevokeReason;
  createdAt: Date;
  /** The last refresh (creation until the first). */
  lastUsedAt: Date;
  /** Absolute end: creation plus the refresh lifetime; refreshing never extends it. */
  expiresAt: Date;
  revokedAt?: Date;
}

export type RefreshTokenStatus = 'active' | 'rotated';

export interface RefreshTokenRecord {
  /** Hex SHA-256 of the token; the token itself is never stored. */
  _id: string;
  projectId: string;
  sessionId: string;
  status: RefreshTokenStatus;
  createdAt: Date;
  expiresAt: Date;
  rotatedAt?: Date;
}

export interface SessionStore {
  insertSession(record: SessionRecord): Promise<void>;
  /** The session if it exists in the project (callers check status and expiry). */
  findSession(projectId: string, sessionId: string): Promise<SessionRecord | null>;
  /** Records a use of an active, unexpired session; null (nothing written) if it is neither. */
  touchSession(projectId: string, sessionId: string, now: Date): Promise<SessionRecord | null>;
  /** Active → revoked; false if the session is unknown or already revoked (nothing written). */
  revokeSession(projectId: string, sessionId: string, reason: SessionRevokeReason, now: Date): Promise<boolean>;
  insertRefreshToken(record: RefreshTokenRecord): Promise<void>;
  /** The token by its hash, whatever its status (callers check status and expiry). */
  findRefreshToken(projectId: string, hash: string): Promise<RefreshTokenRecord | null>;
  /** Guarded: active and unexpired at `now` → rotated. The token as it was, or null when the guard failed. */
  rotateRefreshToken(projectId: string, hash: string, now: Date): Promise<RefreshTokenRecord | null>;
}

/**
 * Ended sessions and spent tokens stay a day past their expiry (for audits), then the TTL indexes
 * remove them. TTL sweeps are lazy, so expiry is also checked in every query that acts on them.
 */
const KEEP_AFTER_EXPIRY_SECONDS = 86_400;

export const sessionIndexes: IndexPlan = {
  sessions: [
    { key: { expiresAt: 1 }, name: 'expires_ttl', expireAfterSeconds: KEEP_AFTER_EXPIRY_SECONDS },
    { key: { projectId: 1, userId: 1 }, name: 'project_user' },
  ],
  refresh_tokens: [
    { key: { expiresAt: 1 }, name: 'expires_ttl', expireAfterSeconds: KEEP_AFTER_EXPIRY_SECONDS },
    { key: { projectId: 1, sessionId: 1 }, name: 'project_session' },
  ],
};

export function mongoSessionStore(db: Db): SessionStore {
  const sessions: Collection<SessionRecord> = db.collection('sessions');
  const tokens: Collection<RefreshTokenRecord> = db.collection('refresh_tokens');
  return {
    async insertSession(record) {
      await sessions.insertOne(record);
    },
    findSession(projectId, sessionId) {
      return sessions.findOne({ _id: sessionId, projectId });
    },
    touchSession(projectId, sessionId, now) {
      return sessions.findOneAndUpdate(
        { _id: sessionId, projectId, status: 'active', expiresAt: { $gt: now } },
        { $set: { lastUsedAt: now } },
        { returnDocument: 'after' },
      );
    },
    async revokeSession(projectId, sessionId, reason, now) {
      // Only from active: the first reason (and time) a session ended is the one kept.
      const r = await sessions.updateOne({ _id: sessionId, projectId, status: 'active' }, { $set: { status: 'revoked', revokeReason: reason, revokedAt: now } });
      return r.modifiedCount === 1;
    },
    async insertRefreshToken(record) {
      await tokens.insertOne(record);
    },
    findRefreshToken(projectId, hash) {
      return tokens.findOne({ _id: hash, projectId });
    },
    rotateRefreshToken(projectId, hash, now) {
      // Requiring status active makes each token single-use: of two concurrent refreshes only one matches.
      return tokens.findOneAndUpdate(
        { _id: hash, projectId, status: 'active', expiresAt: { $gt: now } },
        { $set: { status: 'rotated', rotatedAt: now } },
        { returnDocument: 'before' },
      );
    },
  };
}
