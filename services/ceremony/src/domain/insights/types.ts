/**
 * The contract between the ceremonies (append/login/mediation) and the insights rules: what the
 * ceremonies hand in, what they get back, and the events they record. The rules themselves live
 * beside this file; the ceremonies depend only on these types and the InsightsService interface.
 */

import type { ClientCapabilityMap } from '../../../../runtime/clientCapabilities.js';

/** The end user's client, from the backend variant of clientInformation. */
export interface ClientContext {
  remoteAddress: string;
  userAgent: string;
  /** isUserVerifyingPlatformAuthenticatorAvailable() in the client. */
  uvpaAvailable: boolean;
  /** isConditionalMediationAvailable() in the client. */
  conditionalMediationAvailable: boolean;
  capabilities: ClientCapabilityMap;
  clientEnvHandle?: string;
  javascriptFingerprint?: string;
  bluetoothAvailable?: boolean;
  passwordManagerAvailable?: boolean;
  privateMode?: boolean;
  parsedDeviceInfo?: { browserName: string; browserVersion: string; osName: string; osVersion: string };
}

/** What the rules need to know about each of the user's stored passkeys. */
export interface PasskeySummary {
  /** The passkey's "cre-…" ID. */
  id: string;
  aaguid: string;
  transports: string[];
  backupEligible: boolean;
  /** The client environment the passkey was created in (its key, see clientEnvKey). */
  clientEnvKey?: string;
  /** Operating system the passkey was created on (parsed from the user agent). */
  sourceOS?: string;
  createdAt: Date;
}

export interface AppendFlags {
  forcePasskeyAppend: boolean;
  askForAutoAppend: boolean;
  askForConditionalCreate: boolean;
  askForInAppAppend: string;
}

export interface DetectionTag {
  category: 'support' | 'clientEnv' | 'history' | 'passkey';
  name: string;
}

export interface HistoryData {
  defaultCount: number;
  afterErrorCount: number;
  afterHybridCount: number;
  autoCount: number;
  defaultCooldown: boolean;
  afterErrorCooldown: boolean;
  afterHybridCooldown: boolean;
  autoCooldown: boolean;
  conditionalCreateCooldown: boolean;
  inAppCooldown: boolean;
}

export interface DetectionInsights {
  tags: DetectionTag[];
  credentialIds: string[];
  clientEnvIds: string[];
  passwordManagerIds: string[];
  historyData: HistoryData;
}

export interface AppendInsightsInput {
  projectId: string;
  userId: string;
  client: ClientContext;
  flags: AppendFlags;
  situation: string;
  passkeys: PasskeySummary[];
  now: Date;
  /**
   * B2 stored its ceremony session for this process: the append-started event is recorded with
   * the decision, in the same history write.
   */
  started?: { processId: string };
}

export interface AppendInsights {
  appendAllow: boolean;
  detection: DetectionInsights;
  decision: { tag: string; isRestrictedBrowser: boolean; variant: string; auto: boolean; conditional: boolean; customData: Record<string, unknown> };
}

export type CrossDeviceStrategy = 'standard' | 'minimize' | 'maximize';

export interface LoginInsightsInput {
  projectId: string;
  userId: string;
  client: ClientContext;
  strategy: CrossDeviceStrategy;
  /** The user's passkeys, or their read still in flight: the visit is recorded meanwhile. */
  passkeys: PasskeySummary[] | Promise<PasskeySummary[]>;
  now: Date;
}

export interface LoginInsights {
  loginAllow: boolean;
  detection: DetectionInsights;
  decision: { tag: string; isCDACandidate: boolean; experiments: string[]; preferImmediatelyAvailable: boolean };
}

export type CeremonyEventType =
  | 'append-started'
  | 'append-succeeded'
  | 'append-failed'
  | 'login-started'
  | 'login-succeeded'
  | 'login-failed'
  | 'mediation-started'
  | 'mediation-succeeded'
  | 'mediation-failed'
  | 'clone-detected'
  | 'credential-deleted'
  /** Reported by a client (connect flow) and not the failure of a ceremony; its reason names what happened. */
  | 'client-event';

/** One recorded ceremony step: feeds history and cooldowns, and is the audit trail. */
export interface CeremonyEvent {
  projectId: string;
  userId?: string;
  type: CeremonyEventType;
  /** For appends: the situation of B2 ("default", "after-error", "after-hybrid", …). */
  situation?: string;
  processId?: string;
  credentialId?: string;
  /** For failures: a short machine-readable reason (never secrets or raw responses). */
  reason?: string;
  /** Client-reported events: the client's short message code, only when it is one (see recordClientEvent). */
  message?: string;
  /** The application's tracking ID of the attempt (B3, B5, B7 trackingID). */
  trackingId?: string;
  /** B3: the application asked for a "passkey added" notice to the user. */
  notificationRequested?: boolean;
  client?: ClientContext;
  at: Date;
  /**
   * The user was seen in the event's client environment (B3): the visit is recorded in the same
   * write as the user's history (the environment's first and last seen, and its snapshot).
   */
  recordVisit?: boolean;
}

/** What the ceremonies call; implemented by the insights module over its own collections. */
export interface InsightsService {
  /** B2's insights; records the client environment's visit and the decision (the rules see the state before this request). */
  forAppend(input: AppendInsightsInput): Promise<AppendInsights>;
  /** B4's insights; records the client environment's visit (the rules see the state before this request). */
  forLogin(input: LoginInsightsInput): Promise<LoginInsights>;
  /**
   * Records the event for the audit trail without waiting for it to be written (unless too many
   * wait already). An append event of a user also enters the user's history, and with recordVisit
   * the client environment's visit is recorded, before this resolves (one store operation).
   */
  recordEvent(event: CeremonyEvent): Promise<void>;
  /** Drops everything kept about a user (user deletion). */
  forgetUser(projectId: string, userId: string): Promise<void>;
}
