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

/**
 * Why a session ended early: the user logged out, a refresh token was reused, the user went away
 * (deleted or disabled), it sat unused past the project's idle timeout (refresh rotation "keep"),
 * or the application revoked it through the backend API.
 */
export type SessionRevokeReason = 'logout' | 'refresh_token_reuse' | 'user_unavailable' | 'inactivity' | 'revoked_by_application';

export interface SessionRecord {
  /** `ses-` and 20 digits; the session token's `sid`. */
  _id: string;
  projectId: string;
  userId: string;
  status: SessionStatus;
  revokeReason?: SessionRevokeReason;
  createdAt: Date;
  /**
   * When the user last proved themselves for this session (sign-up or login completion, connect
   * login): the session token's `auth_time`. A refresh never moves it. Absent on sessions started
   * before it was recorded, which count from createdAt (the same moment for them).
   */
  authenticatedAt?: Date;
  /**
   * Who proved the user's identity at authenticatedAt: absent, this service (a sign-up, login or
   * connect login ceremony); "application", the application's server, which created the session
   * through the backend API (POST /v2/users/{userID}/longSessions) after its own login.
   */
  vouchedBy?: 'application';
  /** Sessions the application created: the login identifier it named, shown as the long session's identifierValue. */
  identifierValue?: string;
  /** Sessions the application created: the reference's appType it named (empty, web, native); recorded for audits. */
  appType?: string;
  /** The last refresh, use of a kept refresh token on /v2/me/*, or short session the application asked for (creation until the first). */
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
  /**
   * Records a use of an active, unexpired session; null (nothing written) if it is neither. With
   * `usedAfter` the last use must be later (idle timeout), with `createdAfter` the creation (maximum
   * lifetime): both checked in the same guarded update, so two racing uses cannot revive an idle session.
   */
  touchSession(projectId: string, sessionId: string, now: Date, limits?: { usedAfter?: Date; createdAfter?: Date }): Promise<SessionRecord | null>;
  /** Active → revoked; false if the session is unknown or already revoked (nothing written). */
  revokeSession(projectId: string, sessionId: string, reason: SessionRevokeReason, now: Date): Promise<boolean>;
  /** Up to `limit` of the user's sessions still marked active, whatever their expiry (disabling a user ends each one). */
  listActiveUserSessions(projectId: string, userId: string, limit: number): Promise<SessionRecord[]>;
  /** One page (1-based) of the user's sessions, newest first, and how many there are. */
  listUserSessions(projectId: string, userId: string, page: number, pageSize: number): Promise<{ sessions: SessionRecord[]; total: number }>;
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
    // The backend API's list of a user's sessions, newest first.
    { key: { projectId: 1, userId: 1, createdAt: -1 }, name: 'project_user_created' },
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
    touchSession(projectId, sessionId, now, limits = {}) {
      return sessions.findOneAndUpdate(
        {
          _id: sessionId,
          projectId,
          status: 'active',
          expiresAt: { $gt: now },
          ...(limits.usedAfter ? { lastUsedAt: { $gt: limits.usedAfter } } : {}),
          ...(limits.createdAfter ? { createdAt: { $gt: limits.createdAfter } } : {}),
        },
        { $set: { lastUsedAt: now } },
        { returnDocument: 'after' },
      );
    },
    async revokeSession(projectId, sessionId, reason, now) {
      // Only from active: the first reason (and time) a session ended is the one kept.
      const r = await sessions.updateOne({ _id: sessionId, projectId, status: 'active' }, { $set: { status: 'revoked', revokeReason: reason, revokedAt: now } });
      return r.modifiedCount === 1;
    },
    listActiveUserSessions(projectId, userId, limit) {
      // The project_user index narrows it to the user's sessions; few of them are active.
      return sessions.find({ projectId, userId, status: 'active' }).limit(limit).toArray();
    },
    async listUserSessions(projectId, userId, page, pageSize) {
      const filter = { projectId, userId };
      const [list, total] = await Promise.all([
        sessions.find(filter).sort({ createdAt: -1 }).skip((page - 1) * pageSize).limit(pageSize).toArray(),
        sessions.countDocuments(filter),
      ]);
      return { sessions: list, total };
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
