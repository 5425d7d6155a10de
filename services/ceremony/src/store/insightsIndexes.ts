/**
 * The insights collections' indexes (created at start-up with the ceremony service's own).
 *
 * - user_insights: every operation is a point lookup by _id ([projectId, userId]), served by the
 *   _id index; nothing else to declare.
 * - ceremony_events: only written on the hot path. A user's deletion removes its events by
 *   (projectId, userId); expired events are swept by the TTL index on expiresAt (set per event
 *   from the project's retention; events of the previous design without expiresAt never expire).
 *
 * The previous design's `client_envs` collection is no longer declared or read (see userInsights.ts).
 */
import type { IndexPlan } from '../../../runtime/mongo.js';
import { CEREMONY_EVENTS } from './ceremonyEvents.js';
import { USER_INSIGHTS } from './userInsights.js';

export const insightsIndexes: IndexPlan = {
  [USER_INSIGHTS]: [],
  [CEREMONY_EVENTS]: [
    { key: { projectId: 1, userId: 1, at: -1 }, name: 'project_user_at' },
    { key: { expiresAt: 1 }, name: 'expiry_ttl', expireAfterSeconds: 0 },
  ],
};
