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
}

/**
 * What a finished login ceremony (B5 or B7) says: the passkey used, or that the passkey the browser
 * offered no longer exists (deleted, never known here, or its user deleted). The ceremony says the
 * latter in two ways (B5: 404 credential_not_found; B7: a 200 with error.type credentialDeleted);
 * the adapter turns both into this one value, so no flow re-derives it from an error.
 */
export type FinishedLoginCeremony = { passkeyDeleted: false; passkeyData: PasskeyData } | { passkeyDeleted: true };

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

/**
 * The ceremony is never asked to sign passkeyData here (signPasskeyData stays false on the wire): to
 * sign, it would call back into connect (SignPasskeyData) in the middle of the login. Connect holds
 * the keys and signs signedPasskeyData itself (connect-flows/domain/finishLogin.ts), so a connect
 * login calls one way: connect → ceremony.
 */
export interface PasskeyCeremonies {
  startAppend(call: ServiceCall, input: StartAppendInput): Promise<StartedAppendCeremony>;
  finishAppend(call: ServiceCall, input: FinishAppendInput): Promise<{ passkeyData?: PasskeyData }>;
  startLogin(call: ServiceCall, input: StartLoginInput): Promise<StartedLoginCeremony>;
  finishLogin(call: ServiceCall, input: FinishLoginInput): Promise<FinishedLoginCeremony>;
  /** Conditional UI (passkey autofill): a login without a user named first. */
  startMediation(call: ServiceCall, input: StartMediationInput): Promise<StartedMediation>;
  finishMediation(call: ServiceCall, input: FinishMediationInput): Promise<FinishedLoginCeremony>;
  recordClientEvent(call: ServiceCall, input: ClientEventInput): Promise<void>;
  /** One page (1-based) of the user's passkeys, oldest first. */
  listPasskeys(call: ServiceCall, input: { userId: string; page: number; pageSize: number }): Promise<PasskeyPage>;
  /** The WebAuthn user handle of the user (created at the first append). */
  getUserHandle(call: ServiceCall, userId: string): Promise<string>;
  /** Deletes the user's passkey (ID "cre-…"); not_found for another user's or an unknown one. */
  deletePasskey(call: ServiceCall, input: { userId: string; passkeyId: string }): Promise<void>;
}
