/**
 * What connect's flows need of the ceremony service (WebAuthn registration and login, the user's
 * passkeys), in the domain's own terms: no generated messages, no transport. The adapter
 * (clients/ceremonyClient.ts) builds the ceremony's messages, carries the call's identity as
 * headers and turns every error of the ceremony into a DomainError (a RelayedError) whose kind
 * says what happened: a refusal keeps its kind (invalid_argument, not_found, …); an outage, a
 * time-out or an internal error is 'unavailable' (the outcome is unknown).
 */
import type { ClientSnapshot } from '../store/clientSnapshot.js';

/** Who a call to another service is made for: the gateway's request, the project and the end user's address. */
export interface ServiceCall {
  projectId: string;
  requestId: string;
  /** "" when unknown (a call that bypassed the gateway). */
  clientAddress: string;
}

/** The browser a ceremony runs for: what it said about itself, its environment and what the gateway saw. */
export interface CeremonyClient {
  snapshot: ClientSnapshot;
  clientEnvHandle: string;
  /** "" when unknown. */
  remoteAddress: string;
  /** "" when unknown. */
  userAgent: string;
}

export interface AaguidDetails {
  aaguid: string;
  name: string;
  iconLight: string;
  iconDark: string;
}

/** What a finished ceremony says about the passkey used or created. */
export interface PasskeyData {
  id: string;
  userId: string;
  username: string;
  challengeId: string;
  /** "local", "cda" (cross-device) or "" when the ceremony did not say. */
  ceremonyType: string;
  aaguidDetails?: AaguidDetails;
}

/** One of a user's passkeys as the ceremony lists it; times are yyyy-MM-ddTHH:mm:ss in UTC. */
export interface Passkey {
  /** "cre-…". */
  id: string;
  /** The WebAuthn credential ID. */
  credentialId: string;
  attestationType: string;
  transport: string[];
  backupEligible: boolean;
  backupState: boolean;
  authenticatorAaguid: string;
  sourceOs: string;
  sourceBrowser: string;
  lastUsed: string;
  created: string;
  status: string;
  aaguidDetails?: AaguidDetails;
}

export interface StartAppendInput {
  userId: string;
  processId: string;
  /** The name the authenticator shows for the passkey. */
  username: string;
  client: CeremonyClient;
  /** The user asked for the passkey: the insights may not talk them out of it. */
  forcePasskeyAppend: boolean;
  situation: string;
}

export interface StartedAppendCeremony {
  appendAllow: boolean;
  /** `{"publicKey": …}`. */
  attestationOptions: string;
  /** The detection tags of the insights (e.g. passkey/env-has-passkey); [] when none. */
  detectionTags: { category: string; name: string }[];
  /** Absent when the ceremony gave no decision. */
  decisionInsights?: { tag: string; isRestrictedBrowser: boolean; variant: string; auto: boolean; conditional: boolean };
}

export interface FinishAppendInput {
  userId: string;
  processId: string;
  attestationResponse: string;
  trackingId: string;
  client: CeremonyClient;
}

export interface StartLoginInput {
  userId: string;
  processId: string;
  client: CeremonyClient;
  crossDeviceAuthenticationStrategy: 'standard' | 'minimize' | 'maximize';
}

export interface StartedLoginCeremony {
  loginAllow: boolean;
  assertionOptions: string;
  /** Absent when the ceremony gave no decision. */
  decisionInsights?: { tag: string; isCdaCandidate: boolean; preferImmediatelyAvailable: boolean };
}

export interface FinishLoginInput {
  userId: string;
  processId: string;
  assertionResponse: string;
  trackingId: string;
  client: CeremonyClient;
  /** Ask for signedPasskeyData (a JWT for the application's server); unset: the ceremony's default (no). */
  signPasskeyData?: boolean;
}

export interface FinishedLoginCeremony {
  passkeyData?: PasskeyData;
  signedPasskeyData?: string;
}

export interface StartMediationInput {
  processId: string;
  client: CeremonyClient;
}

export interface StartedMediation {
  loginAllow: boolean;
  assertionOptions: string;
}

export interface FinishMediationInput {
  processId: string;
  assertionResponse: string;
  trackingId: string;
  client: CeremonyClient;
  signPasskeyData?: boolean;
}

export interface FinishedMediation extends FinishedLoginCeremony {
  /** Set instead of an error status when the passkey used no longer exists (type "credentialDeleted"). */
  error?: { type: string };
}

export interface ClientEventInput {
  /** "" when the process has no user yet. */
  userId: string;
  processId: string;
  eventType: string;
  message: string;
  challenge: string;
  client: CeremonyClient;
}

export interface PasskeyPage {
  passkeys: Passkey[];
  /** 1 when the ceremony did not say. */
  totalPages: number;
}

export interface PasskeyCeremonies {
  startAppend(call: ServiceCall, input: StartAppendInput): Promise<StartedAppendCeremony>;
  finishAppend(call: ServiceCall, input: FinishAppendInput): Promise<{ passkeyData?: PasskeyData }>;
  startLogin(call: ServiceCall, input: StartLoginInput): Promise<StartedLoginCeremony>;
  finishLogin(call: ServiceCall, input: FinishLoginInput): Promise<FinishedLoginCeremony>;
  /** Conditional UI (passkey autofill): a login without a user named first. */
  startMediation(call: ServiceCall, input: StartMediationInput): Promise<StartedMediation>;
  finishMediation(call: ServiceCall, input: FinishMediationInput): Promise<FinishedMediation>;
  recordClientEvent(call: ServiceCall, input: ClientEventInput): Promise<void>;
  /** One page (1-based) of the user's passkeys, oldest first. */
  listPasskeys(call: ServiceCall, input: { userId: string; page: number; pageSize: number }): Promise<PasskeyPage>;
  /** The WebAuthn user handle of the user (created at the first append). */
  getUserHandle(call: ServiceCall, userId: string): Promise<string>;
  /** Deletes the user's passkey (ID "cre-…"); not_found for another user's or an unknown one. */
  deletePasskey(call: ServiceCall, input: { userId: string; passkeyId: string }): Promise<void>;
}
