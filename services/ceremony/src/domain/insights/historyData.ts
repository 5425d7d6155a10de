/**
 * historyData from the user's recorded append events: how often an append was started per variant,
 * and which kinds of append are cooling down because a recent one did not succeed.
 *
 * An append attempt is one "append-started" event. Its outcome is the "append-succeeded" or
 * "append-failed" event that belongs to it: the latest start of the same process before the outcome,
 * or (when no start carries the outcome's processId) the latest start before it. An attempt without
 * outcome is still running until the pending grace has passed, then it counts as abandoned (the
 * user declined or closed the dialog; the backend API has no "declined" call). Whether an attempt
 * was automatic or a conditional create is what the insights decided for it: the "append-decided"
 * record nearest in time (same variant, within decisionLinkMs).
 */
import type { HistoryData } from './types.js';
import { appendVariantOf, type AppendVariant } from './situation.js';

export type AppendHistoryEventType = 'append-decided' | 'append-started' | 'append-succeeded' | 'append-failed';

export interface AppendHistoryEvent {
  type: AppendHistoryEventType;
  at: Date;
  situation?: string;
  processId?: string;
  /** Starts: the client was a restricted (in-app) browser. Decisions: the decision's isRestrictedBrowser. */
  restrictedBrowser?: boolean;
  /** Decisions only: auto append decided. */
  auto?: boolean;
  /** Decisions only: conditional create decided. */
  conditional?: boolean;
}

export interface HistoryWindows {
  /** How long an unsuccessful attempt keeps its kind of append from being offered again. */
  cooldownMs: number;
  /** How long an attempt without outcome is considered still running (not yet abandoned). */
  pendingGraceMs: number;
  /** Largest distance between a start and the decision it is linked to. */
  decisionLinkMs: number;
}

interface Attempt {
  start: AppendHistoryEvent;
  variant: AppendVariant;
  decision: AppendHistoryEvent | null;
  succeeded: boolean;
  failed: boolean;
}

export function emptyHistoryData(): HistoryData {
  return {
    defaultCount: 0,
    afterErrorCount: 0,
    afterHybridCount: 0,
    autoCount: 0,
    defaultCooldown: false,
    afterErrorCooldown: false,
    afterHybridCooldown: false,
    autoCooldown: false,
    conditionalCreateCooldown: false,
    inAppCooldown: false,
  };
}

export function computeHistoryData(events: AppendHistoryEvent[], now: Date, windows: HistoryWindows): HistoryData {
  const nowMs = now.getTime();
  // Events after `now` have not happened from this request's point of view.
  const past = events.filter((e) => e.at instanceof Date && !Number.isNaN(e.at.getTime()) && e.at.getTime() <= nowMs).sort((a, b) => a.at.getTime() - b.at.getTime());
  const decisions = past.filter((e) => e.type === 'append-decided');
  const attempts: Attempt[] = past
    .filter((e) => e.type === 'append-started')
    .map((start) => {
      const decision = linkDecision(start, decisions, windows.decisionLinkMs);
      return { start, decision, variant: appendVariantOf(start.situation ?? decision?.situation), succeeded: false, failed: false };
    });

  for (const outcome of past) {
    if (outcome.type !== 'append-succeeded' && outcome.type !== 'append-failed') continue;
    const attempt = attemptOf(outcome, attempts);
    if (!attempt) continue;
    if (outcome.type === 'append-succeeded') attempt.succeeded = true;
    else attempt.failed = true;
  }

  const history = emptyHistoryData();
  for (const attempt of attempts) {
    if (attempt.variant === 'default') history.defaultCount++;
    else if (attempt.variant === 'after-error') history.afterErrorCount++;
    else history.afterHybridCount++;
    if (attempt.decision?.auto) history.autoCount++;

    const startMs = attempt.start.at.getTime();
    const inWindow = startMs > nowMs - windows.cooldownMs;
    const abandoned = !attempt.failed && startMs <= nowMs - windows.pendingGraceMs;
    if (!inWindow || attempt.succeeded || !(attempt.failed || abandoned)) continue;

    if (attempt.variant === 'default') history.defaultCooldown = true;
    else if (attempt.variant === 'after-error') history.afterErrorCooldown = true;
    else history.afterHybridCooldown = true;
    if (attempt.decision?.auto) history.autoCooldown = true;
    if (attempt.decision?.conditional) history.conditionalCreateCooldown = true;
    if (attempt.start.restrictedBrowser || attempt.decision?.restrictedBrowser) history.inAppCooldown = true;
  }
  return history;
}

/** The decision nearest in time to the start, of the same variant when the start names one. */
function linkDecision(start: AppendHistoryEvent, decisions: AppendHistoryEvent[], maxDistanceMs: number): AppendHistoryEvent | null {
  const variant = start.situation === undefined ? null : appendVariantOf(start.situation);
  let best: AppendHistoryEvent | null = null;
  let bestDistance = Infinity;
  for (const decision of decisions) {
    if (variant !== null && appendVariantOf(decision.situation) !== variant) continue;
    const distance = Math.abs(decision.at.getTime() - start.at.getTime());
    // Strictly smaller keeps the earlier of two equally near decisions: decisions precede their start.
    if (distance <= maxDistanceMs && distance < bestDistance) {
      best = decision;
      bestDistance = distance;
    }
  }
  return best;
}

/** The attempt an outcome belongs to (attempts are sorted by start time). */
function attemptOf(outcome: AppendHistoryEvent, attempts: Attempt[]): Attempt | null {
  const before = attempts.filter((a) => a.start.at.getTime() <= outcome.at.getTime());
  if (outcome.processId) {
    const sameProcess = before.filter((a) => a.start.processId === outcome.processId);
    if (sameProcess.length) return sameProcess[sameProcess.length - 1];
  }
  return before.length ? before[before.length - 1] : null;
}
