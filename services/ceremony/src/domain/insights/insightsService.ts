/** InsightsService over MongoDB: gathers the facts (store + client), applies the pure rules, records decisions. */
import type { Db } from 'mongodb';
import { decideAppend } from './appendDecision.js';
import { readClientCapabilities, type ClientCapabilities } from './clientCapabilities.js';
import { clientEnvKey } from './clientEnvKey.js';
import { buildDetectionInsights } from './detectionInsights.js';
import { computeHistoryData, type HistoryWindows } from './historyData.js';
import { decideLogin } from './loginDecision.js';
import { isFromThisEnv } from './passkeyLocation.js';
import { assessRestrictedBrowser, type RestrictedBrowserVerdict } from './restrictedBrowser.js';
import { createInsightsStore, type ClientEnvSnapshot, type EventDoc } from './store.js';
import type { AppendInsights, AppendInsightsInput, CeremonyEvent, ClientContext, DetectionInsights, InsightsService, LoginInsights, LoginInsightsInput, PasskeySummary } from './types.js';
import { parseUserAgent, type ParsedUserAgent } from './userAgent.js';

export interface InsightsOptions {
  /** How long an unsuccessful append keeps its kind of append from being offered again (default 7; 0 disables cooldowns). */
  cooldownDays?: number;
  /** How long an append start without outcome counts as still running rather than abandoned (default 10). */
  pendingGraceMinutes?: number;
  /** A client environment first seen for the user less than this long ago still counts as new (default 60). */
  newEnvGraceSeconds?: number;
  /** How many of the user's most recent append events history reads (default 1000). */
  historyLimit?: number;
  /** How many client environments clientEnvIds lists, most recently seen first (default 100). */
  clientEnvLimit?: number;
}

const DAY_MS = 24 * 3600 * 1000;
/** A decision and the append start it led to are recorded within one request, seconds apart. */
const DECISION_LINK_MS = 10 * 60 * 1000;
/** Longest failure reason kept: reasons are short codes, never response bodies. */
const MAX_REASON_LENGTH = 200;

interface Facts {
  capabilities: ClientCapabilities;
  userAgent: ParsedUserAgent;
  restrictedBrowser: RestrictedBrowserVerdict;
  envKey: string;
  envHasPasskey: boolean;
  detection: DetectionInsights;
}

export function createInsightsService(db: Db, opts: InsightsOptions = {}): InsightsService {
  const store = createInsightsStore(db);
  const windows: HistoryWindows = {
    cooldownMs: nonNegative('cooldownDays', opts.cooldownDays, 7) * DAY_MS,
    pendingGraceMs: nonNegative('pendingGraceMinutes', opts.pendingGraceMinutes, 10) * 60_000,
    decisionLinkMs: DECISION_LINK_MS,
  };
  const newEnvGraceMs = nonNegative('newEnvGraceSeconds', opts.newEnvGraceSeconds, 60) * 1000;
  const historyLimit = positiveInteger('historyLimit', opts.historyLimit, 1000);
  const clientEnvLimit = positiveInteger('clientEnvLimit', opts.clientEnvLimit, 100);

  async function gatherFacts(projectId: string, userId: string, client: ClientContext, passkeys: PasskeySummary[], now: Date): Promise<Facts> {
    assertValidDate(now);
    const capabilities = readClientCapabilities(client);
    const userAgent = parseUserAgent(client.userAgent ?? '');
    const restrictedBrowser = assessRestrictedBrowser(userAgent);
    const envKey = clientEnvKey(client);
    const [clientEnvIds, firstSeen, events] = await Promise.all([
      store.clientEnvKeysOf(projectId, userId, clientEnvLimit),
      store.firstSeenInEnv(projectId, userId, envKey),
      store.appendHistoryOf(projectId, userId, historyLimit),
    ]);
    const history = computeHistoryData(events, now, windows);
    const envHasPasskey = passkeys.some((p) => isFromThisEnv(p, envKey));
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
      clientEnvIds,
    });
    return { capabilities, userAgent, restrictedBrowser, envKey, envHasPasskey, detection };
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
      });
      // Recorded so history can tell which later append starts were automatic or conditional.
      await store.insertEvent({
        projectId: input.projectId,
        userId: input.userId,
        type: 'append-decided',
        situation: input.situation,
        at: input.now,
        client: auditClient(input.client, facts.envKey, facts.restrictedBrowser.restricted),
        decision: {
          appendAllow,
          tag: decision.tag,
          variant: decision.variant,
          auto: decision.auto,
          conditional: decision.conditional,
          isRestrictedBrowser: decision.isRestrictedBrowser,
        },
      });
      return { appendAllow, detection: facts.detection, decision };
    },

    async forLogin(input: LoginInsightsInput): Promise<LoginInsights> {
      const facts = await gatherFacts(input.projectId, input.userId, input.client, input.passkeys, input.now);
      const { loginAllow, decision } = decideLogin({
        capabilities: facts.capabilities,
        passkeys: input.passkeys,
        envKey: facts.envKey,
        osName: facts.userAgent.osName || input.client.parsedDeviceInfo?.osName || '',
        strategy: input.strategy,
      });
      return { loginAllow, detection: facts.detection, decision };
    },

    async recordClientEnv(projectId, userId, client, now) {
      assertValidDate(now);
      const key = clientEnvKey(client);
      await store.upsertClientEnv(projectId, userId, key, envSnapshot(client), now);
      return key;
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
      if (event.client) {
        const restricted = assessRestrictedBrowser(parseUserAgent(event.client.userAgent ?? '')).restricted;
        doc.client = auditClient(event.client, clientEnvKey(event.client), restricted);
      }
      await store.insertEvent(doc);
    },

    async forgetUser(projectId, userId) {
      await store.forgetUser(projectId, userId);
    },
  };
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
    capabilities: readClientCapabilities(client),
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

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`insights option ${name} must be an integer >= 1, got ${value}`);
  return value;
}
