/**
 * InsightsService over its stores (store/insightsStores.ts): gathers the facts (the user's insights document + the client),
 * applies the pure rules, records decisions and events.
 *
 * Store operations: forLogin is one findOneAndUpdate on the user's insights document (it records
 * this environment's visit and returns the state before it, which is what the rules see; the
 * caller's read of the user's passkeys may run meanwhile);
 * forAppend adds one update for its decision's history entry (with B2's start). Events go to the
 * audit trail through a batching writer and never hold up the answer; append events also update
 * the user's bounded append history (one update, or with recordVisit one findOneAndUpdate that
 * records the visit too) before recordEvent resolves, so the next B2 sees them.
 */
import type { Logger } from 'pino';
import { DomainError } from '../../../../runtime/errors.js';
import { batchEventWrites, RetryLater, type BatchWriter } from '../../store/batchEventWrites.js';
import type { EventDoc } from '../../store/ceremonyEvents.js';
import type { InsightsStores } from '../../store/insightsStores.js';
import { isStoreOutage } from '../../../../runtime/isStoreOutage.js';
import type { AppendHistoryEntry, ClientEnvSnapshot, UserInsightsState } from '../../store/userInsights.js';
import { DEFAULT_EVENT_RETENTION_DAYS } from '../deps.js';
import { decideAppend } from './appendDecision.js';
import { readClientCapabilities, type ClientCapabilities } from './clientCapabilities.js';
import { clientEnvKey } from './clientEnvKey.js';
import { buildDetectionInsights } from './detectionInsights.js';
import { computeHistoryData, type HistoryWindows } from './historyData.js';
import { decideLogin } from './loginDecision.js';
import { passkeyEventEffects, type PasskeyEventEffects } from './passkeyEventEffects.js';
import { isFromThisEnv } from './passkeyLocation.js';
import { assessRestrictedBrowser, type RestrictedBrowserVerdict } from './restrictedBrowser.js';
import type { AppendInsights, AppendInsightsInput, CeremonyEvent, ClientContext, DetectionInsights, InsightsService, LoginInsights, LoginInsightsInput, PasskeySummary } from './types.js';
import { parseUserAgent, type ParsedUserAgent } from './userAgent.js';

export interface InsightsOptions {
  /** How long an unsuccessful append keeps its kind of append from being offered again (default 7; 0 disables cooldowns). */
  cooldownDays?: number;
  /** How long an append start without outcome counts as still running rather than abandoned (default 10). */
  pendingGraceMinutes?: number;
  /** A client environment first seen for the user less than this long ago still counts as new (default 60). */
  newEnvGraceSeconds?: number;
  /**
   * Days a project's events are kept (the project's setting, from the project directory). A
   * not_found answer means the default; any other failure is retried when the events are written.
   */
  eventRetentionDays?: (projectId: string) => Promise<number>;
  /** Where lost events and retries are reported (default: nowhere). */
  logger?: Pick<Logger, 'warn' | 'error'>;
  /** The event writer's batching (see batchEventWrites); tests shorten the pauses. */
  eventBatching?: { maxBatch?: number; delayMs?: number; maxQueue?: number; backoffMs?: { first: number; max: number }; sleep?: (ms: number) => Promise<void> };
}

/** The service with the event writer's controls, for main.ts (shutdown) and tests. */
export interface InsightsRuntime extends InsightsService {
  /** Resolves when every event recorded so far is written. */
  flush(): Promise<void>;
  /** Writes what is queued; called on shutdown before the store closes. */
  close(): Promise<void>;
}

const DAY_MS = 24 * 3600 * 1000;
/** A decision and the append start it led to are recorded within one request, seconds apart. */
const DECISION_LINK_MS = 10 * 60 * 1000;
/** Longest failure reason kept: reasons are short codes, never response bodies. */
const MAX_REASON_LENGTH = 200;
const APPEND_EVENT_TYPES: ReadonlySet<string> = new Set(['append-started', 'append-succeeded', 'append-failed']);
const silentLogger: Pick<Logger, 'warn' | 'error'> = { warn: () => undefined, error: () => undefined };

interface Facts {
  capabilities: ClientCapabilities;
  userAgent: ParsedUserAgent;
  restrictedBrowser: RestrictedBrowserVerdict;
  envKey: string;
  envHasPasskey: boolean;
  detection: DetectionInsights;
  /** What the application's unexpired passkey events decide (read with the same document). */
  reported: PasskeyEventEffects;
}

export function createInsightsService(stores: InsightsStores, opts: InsightsOptions = {}): InsightsRuntime {
  const windows: HistoryWindows = {
    cooldownMs: nonNegative('cooldownDays', opts.cooldownDays, 7) * DAY_MS,
    pendingGraceMs: nonNegative('pendingGraceMinutes', opts.pendingGraceMinutes, 10) * 60_000,
    decisionLinkMs: DECISION_LINK_MS,
  };
  const newEnvGraceMs = nonNegative('newEnvGraceSeconds', opts.newEnvGraceSeconds, 60) * 1000;
  const retentionOf = opts.eventRetentionDays ?? (async () => DEFAULT_EVENT_RETENTION_DAYS);
  const { users, events } = stores;
  const writer: BatchWriter<EventDoc> = batchEventWrites<EventDoc>({
    ...opts.eventBatching,
    logger: opts.logger ?? silentLogger,
    isTransient: isStoreOutage,
    write: async (batch) => {
      await setExpiry(batch, retentionOf);
      await events.insertMany(batch);
    },
  });

  /**
   * `passkeys` may still be on its way from the store (B4 reads them while the visit is recorded:
   * neither needs the other, so the two take one round trip).
   */
  async function gatherFacts(projectId: string, userId: string, client: ClientContext, passkeysRead: PasskeySummary[] | Promise<PasskeySummary[]>, now: Date): Promise<Facts & { passkeys: PasskeySummary[] }> {
    assertValidDate(now);
    const capabilities = readClientCapabilities(client);
    const userAgent = parseUserAgent(client.userAgent ?? '');
    const restrictedBrowser = assessRestrictedBrowser(userAgent);
    const envKey = clientEnvKey(client);
    // The one store operation: this visit is recorded, the rules see the state before it.
    const [before, passkeys] = await Promise.all([users.visitEnv(projectId, userId, envKey, envSnapshot(client), now), passkeysRead]);
    const reported = passkeyEventEffects(before.passkeyEvents, now);
    // Append failures the application reported join the recorded history (they count until they expire or are deleted).
    const history = computeHistoryData([...historyEvents(before), ...reported.appendFailures], now, windows);
    const envHasPasskey = passkeys.some((p) => isFromThisEnv(p, envKey));
    const firstSeen = before.envs.find((e) => e.key === envKey)?.firstSeen ?? null;
    // Known: a passkey was made here, or the user was seen here before this request (the ceremony
    // may record the environment just before asking, hence the grace).
    const knownEnv = passkeys.some((p) => p.clientEnvKey === envKey) || (firstSeen !== null && firstSeen.getTime() <= now.getTime() - newEnvGraceMs);
    const detection = buildDetectionInsights({
      capabilities,
      restrictedBrowser: restrictedBrowser.restricted,
      knownEnv,
      envHasPasskey,
      history,
      passkeys,
      clientEnvIds: clientEnvIdsOf(before),
    });
    return { capabilities, userAgent, restrictedBrowser, envKey, envHasPasskey, detection, passkeys, reported };
  }

  return {
    async forAppend(input: AppendInsightsInput): Promise<AppendInsights> {
      const facts = await gatherFacts(input.projectId, input.userId, input.client, input.passkeys, input.now);
      const { appendAllow, decision } = decideAppend({
        capabilities: facts.capabilities,
        restrictedBrowser: facts.restrictedBrowser,
        flags: input.flags,
        situation: input.situation,
        userPasskeyCount: input.passkeys.length,
        envHasPasskey: facts.envHasPasskey,
        history: facts.detection.historyData,
        blacklistedVariants: facts.reported.appendBlacklisted,
      });
      const client = auditClient(input.client, facts.envKey, facts.restrictedBrowser.restricted);
      const decided: EventDoc = {
        projectId: input.projectId,
        userId: input.userId,
        type: 'append-decided',
        situation: input.situation,
        at: input.now,
        client,
        decision: {
          appendAllow,
          tag: decision.tag,
          variant: decision.variant,
          auto: decision.auto,
          conditional: decision.conditional,
          isRestrictedBrowser: decision.isRestrictedBrowser,
        },
      };
      const started: EventDoc | null = input.started
        ? { projectId: input.projectId, userId: input.userId, type: 'append-started', situation: input.situation, processId: input.started.processId, at: input.now, client }
        : null;
      // Recorded so history can tell which later append starts were automatic or conditional; the
      // start goes into the same write.
      await users.pushHistory(input.projectId, input.userId, [
        { type: 'append-decided', at: input.now, situation: input.situation, auto: decision.auto, conditional: decision.conditional, restrictedBrowser: decision.isRestrictedBrowser },
        ...(started ? [historyEntryOf(started)] : []),
      ]);
      await writer.add(decided);
      if (started) await writer.add(started);
      return { appendAllow, detection: facts.detection, decision };
    },

    async forLogin(input: LoginInsightsInput): Promise<LoginInsights> {
      const facts = await gatherFacts(input.projectId, input.userId, input.client, input.passkeys, input.now);
      const { loginAllow, decision } = decideLogin({
        capabilities: facts.capabilities,
        passkeys: facts.passkeys,
        envKey: facts.envKey,
        osName: facts.userAgent.osName || input.client.parsedDeviceInfo?.osName || '',
        strategy: input.strategy,
        loginBlacklisted: facts.reported.loginBlacklisted,
      });
      return { loginAllow, detection: facts.detection, decision };
    },

    async recordEvent(event: CeremonyEvent) {
      assertValidDate(event.at);
      const doc: EventDoc = {
        projectId: event.projectId,
        userId: event.userId,
        type: event.type,
        situation: event.situation,
        processId: event.processId,
        credentialId: event.credentialId,
        reason: event.reason?.slice(0, MAX_REASON_LENGTH),
        message: event.message?.slice(0, MAX_REASON_LENGTH),
        trackingId: event.trackingId?.slice(0, MAX_REASON_LENGTH),
        notificationRequested: event.notificationRequested,
        at: event.at,
      };
      const envKey = event.client ? clientEnvKey(event.client) : '';
      if (event.client) {
        const restricted = assessRestrictedBrowser(parseUserAgent(event.client.userAgent ?? '')).restricted;
        doc.client = auditClient(event.client, envKey, restricted);
      }
      // History is what the next append start decides on, so it is updated before this resolves.
      const history = event.userId && APPEND_EVENT_TYPES.has(event.type) ? [historyEntryOf(doc)] : [];
      if (event.userId && event.client && event.recordVisit) {
        await users.visitEnv(event.projectId, event.userId, envKey, envSnapshot(event.client), event.at, history);
      } else if (event.userId && history.length) {
        await users.pushHistory(event.projectId, event.userId, history);
      }
      await writer.add(doc);
    },

    async forgetUser(projectId, userId) {
      // Events of the user still queued would otherwise be written after the deletion.
      await writer.flush();
      await events.forgetUser(projectId, userId);
      await users.forgetUser(projectId, userId);
    },

    flush: () => writer.flush(),
    close: () => writer.close(),
  };
}

/** History entries newest first, as the events collection used to return them. */
function historyEvents(state: UserInsightsState): AppendHistoryEntry[] {
  return [...state.history].reverse();
}

/** The user's environments, most recently seen first (ties: by key, so the order is stable). */
function clientEnvIdsOf(state: UserInsightsState): string[] {
  return [...state.envs].sort((a, b) => b.lastSeen.getTime() - a.lastSeen.getTime() || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((e) => e.key);
}

/** What history keeps of an append event (see historyData.ts). */
function historyEntryOf(doc: EventDoc): AppendHistoryEntry {
  const entry: AppendHistoryEntry = { type: doc.type as AppendHistoryEntry['type'], at: doc.at, restrictedBrowser: doc.client?.restrictedBrowser === true };
  if (doc.situation !== undefined) entry.situation = doc.situation;
  if (doc.processId !== undefined) entry.processId = doc.processId;
  return entry;
}

/**
 * Each event expires its project's retention after it happened. Projects are asked once per
 * batch (the directory caches them); a project that no longer exists gets the default.
 */
async function setExpiry(batch: EventDoc[], retentionOf: (projectId: string) => Promise<number>): Promise<void> {
  const days = new Map<string, number>();
  for (const projectId of new Set(batch.filter((d) => !d.expiresAt).map((d) => d.projectId))) {
    try {
      days.set(projectId, await retentionOf(projectId));
    } catch (err) {
      if (err instanceof DomainError && err.kind === 'not_found') days.set(projectId, DEFAULT_EVENT_RETENTION_DAYS);
      else throw new RetryLater(`the retention of project ${projectId} could not be read`, { cause: err });
    }
  }
  for (const doc of batch) {
    if (!doc.expiresAt) doc.expiresAt = new Date(doc.at.getTime() + (days.get(doc.projectId) ?? DEFAULT_EVENT_RETENTION_DAYS) * DAY_MS);
  }
}

/** The environment's descriptive fields, refreshed on every visit (the newest snapshot wins). */
function envSnapshot(client: ClientContext): ClientEnvSnapshot {
  const ua = parseUserAgent(client.userAgent ?? '');
  const device = client.parsedDeviceInfo;
  return {
    userAgent: client.userAgent ?? '',
    // The user agent is parsed here; the client's own parsedDeviceInfo fills what it leaves open.
    os: { name: ua.osName || device?.osName || '', version: ua.osVersion || device?.osVersion || '' },
    browser: { name: ua.browserName || device?.browserName || '', version: ua.browserVersion || device?.browserVersion || '', type: ua.browserType },
    restrictedBrowser: assessRestrictedBrowser(ua).restricted,
    capabilities: { ...readClientCapabilities(client) },
  };
}

function auditClient(client: ClientContext, envKey: string, restrictedBrowser: boolean): NonNullable<EventDoc['client']> {
  return { userAgent: client.userAgent ?? '', remoteAddress: client.remoteAddress ?? '', clientEnvKey: envKey, restrictedBrowser };
}

function assertValidDate(value: Date): void {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new TypeError(`insights: expected a valid Date, got ${String(value)}`);
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`insights option ${name} must be a finite number >= 0, got ${value}`);
  return value;
}
