/**
 * What the ceremony domain depends on: its own repositories, the connect service (projects, users,
 * signing) behind small interfaces, the insights rules, the AAGUID catalog and a clock.
 */
import type { Logger } from 'pino';
import type { AuthEventStore } from '../store/authEvents.js';
import type { CredentialStore } from '../store/credentials.js';
import type { CeremonyOperation, SessionStore, UserVerificationPolicy } from '../store/sessions.js';
import type { PasskeyEventStore } from '../store/userInsights.js';
import type { WebauthnUserStore } from '../store/webauthnUsers.js';
import type { AaguidCatalog, AaguidDetails } from './aaguidDetails.js';
import type { InsightsService } from './insights/types.js';
import type { EventOutbox } from '../../../runtime/outbox.js';

/** What a ceremony needs to know about the relying party (the project). */
export interface ProjectInfo {
  projectId: string;
  rpId: string;
  rpName: string;
  /** Origins a ceremony response may come from, e.g. "https://app.example.com". */
  origins: string[];
  userVerification: UserVerificationPolicy;
  frontendApiUrl: string;
  /** Days the project's ceremony events are kept before they expire (the connect service's setting). */
  eventRetentionDays: number;
  /** What a passkey flagged as possibly cloned may do: never log in again (block) or go on (record). */
  cloneDetection: 'block' | 'record';
}

/** Event retention when the connect service sends none (an older connect service answers 0). */
export const DEFAULT_EVENT_RETENTION_DAYS = 90;

export interface ProjectDirectory {
  /** The project, or not_found `project_not_found`. */
  get(projectId: string): Promise<ProjectInfo>;
}

export interface UserInfo {
  userId: string;
  fullName?: string;
  /** For connect projects: the WebAuthn user handle to use instead of a generated one. */
  explicitWebauthnId?: string;
}

export interface UserDirectory {
  /** The user of the project, or null if it does not exist (there). */
  find(projectId: string, userId: string): Promise<UserInfo | null>;
  /** The user was deleted (or changed): what is remembered of it goes (directories that remember). */
  forget?(projectId: string, userId: string): void;
}

/** passkeyData of the finish responses. */
export interface PasskeyData {
  id: string;
  userId: string;
  username: string;
  challengeId: string;
  ceremonyType: CeremonyType;
  aaguidDetails: AaguidDetails;
}

export type CeremonyType = 'local' | 'cda' | 'security-key';

export interface PasskeyDataSigner {
  /** passkeyData as a short-lived ES256 JWT signed with the project's key (signedPasskeyData). */
  sign(projectId: string, data: PasskeyData): Promise<string>;
}

/** Sends the "a passkey was added" email (B3 sendNotification); the challenge service delivers it. */
export interface PasskeyNotifier {
  passkeyAdded(projectId: string, notice: { userId: string; email: string; passkeyName: string; device: string }): Promise<void>;
}

/** Counts finished ceremonies (the metric ceremony_outcomes_total); prom-client's Counter satisfies it. */
export interface CeremonyOutcomeCounter {
  inc(labels: { operation: CeremonyOperation; outcome: 'success' | 'failure'; reason: string }): void;
}

export interface CeremonyDomainDeps {
  projects: ProjectDirectory;
  notifier: PasskeyNotifier;
  users: UserDirectory;
  signer: PasskeyDataSigner;
  sessions: SessionStore;
  credentials: CredentialStore;
  webauthnUsers: WebauthnUserStore;
  insights: InsightsService;
  /** The application's passkey events, in the insights' per-user document (the rules read them there). */
  passkeyEvents: PasskeyEventStore;
  /** The logins the application reports itself (recordAuthEvent.ts). */
  authEvents: AuthEventStore;
  aaguids: AaguidCatalog;
  /**
   * The ceremony's outbox (`ceremony_outbox`), written before the answer: passkey.created and
   * passkey.deleted around their change; passkey-login.completed, passkey-login.failed and
   * passkey.clone-detected in one write after it (buildPasskeyEvents.ts).
   */
  events: EventOutbox;
  /** Failures that must not change a ceremony's outcome (a lost audit event) are logged here. */
  logger: Pick<Logger, 'warn' | 'error'>;
  /** Every success and failure of B3, B5 and B7 is counted here (when given) as its event is recorded. */
  outcomes?: CeremonyOutcomeCounter;
  now: () => Date;
}
