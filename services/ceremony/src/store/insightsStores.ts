/**
 * The two stores the insights service works on, built from one database: the per-user insights
 * document (bounded by the limits given here) and the ceremony event trail. main.ts and tests build
 * them and hand them to createInsightsService, so the service never sees a database handle.
 */
import type { Db } from 'mongodb';
import { createCeremonyEventStore, type CeremonyEventStore } from './ceremonyEvents.js';
import { createUserInsightsStore, type UserInsightsStore } from './userInsights.js';

export interface InsightsStores {
  users: UserInsightsStore;
  events: CeremonyEventStore;
}

export interface InsightsStoreLimits {
  /** How many of the user's most recent append events are kept for history (default 50). */
  historyLimit?: number;
  /** How many client environments are kept per user, the most recently seen (default 100); clientEnvIds lists them. */
  clientEnvLimit?: number;
  /** How many passkey events (backend API) a user may have at once (default 50). */
  passkeyEventLimit?: number;
}

export function createInsightsStores(db: Db, limits: InsightsStoreLimits = {}): InsightsStores {
  return {
    users: createUserInsightsStore(db, {
      envLimit: positiveInteger('clientEnvLimit', limits.clientEnvLimit, 100),
      historyLimit: positiveInteger('historyLimit', limits.historyLimit, 50),
      passkeyEventLimit: positiveInteger('passkeyEventLimit', limits.passkeyEventLimit, 50),
    }),
    events: createCeremonyEventStore(db),
  };
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`insights option ${name} must be an integer >= 1, got ${value}`);
  return value;
}
