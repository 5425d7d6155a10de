/**
 * Plain in-memory fakes of the ports connect's domain has to the ceremony and challenge services
 * (services/connect/src/shared/domain/passkeyCeremonies.ts, oneTimeCodes.ts), for testing the flows without RPC: each
 * records its calls, answers what the test set, and throws an error the test queued for a method.
 */
import type { CodeChannel, OneTimeCodes, SentCode, VerifiedCode } from '../../services/connect/src/shared/domain/oneTimeCodes.js';
import type {
  ClientEventInput,
  FinishAppendInput,
  FinishedLoginCeremony,
  FinishLoginInput,
  FinishMediationInput,
  Passkey,
  PasskeyCeremonies,
  PasskeyData,
  ServiceCall,
  StartAppendInput,
  StartedAppendCeremony,
  StartedLoginCeremony,
  StartedMediation,
  StartLoginInput,
  StartMediationInput,
} from '../../services/connect/src/shared/domain/passkeyCeremonies.js';
import type { ClientSnapshot } from '../../services/connect/src/shared/store/clientSnapshot.js';

/** A browser that can do everything with passkeys here (platform authenticator, autofill). */
export const CAPABLE_BROWSER: ClientSnapshot = { uvpaAvailable: true, conditionalMediationAvailable: true, capabilities: { hybridTransport: true } };
/** A browser without any WebAuthn support. */
export const INCAPABLE_BROWSER: ClientSnapshot = { uvpaAvailable: false, conditionalMediationAvailable: false, capabilities: {} };

export const ATTESTATION_OPTIONS = '{"publicKey":{"challenge":"YXR0","user":{"name":"u"}}}';
export const ASSERTION_OPTIONS = '{"publicKey":{"challenge":"YXNz"}}';
export const MEDIATION_OPTIONS = '{"publicKey":{"challenge":"bWVk"},"mediation":"conditional"}';

type Method = keyof PasskeyCeremonies;

export interface RecordedCall<I = unknown> {
  call: ServiceCall;
  input: I;
}

export class FakeCeremonies implements PasskeyCeremonies {
  calls: { [M in Method]: RecordedCall[] } = {
    startAppend: [],
    finishAppend: [],
    startLogin: [],
    finishLogin: [],
    startMediation: [],
    finishMediation: [],
    recordClientEvent: [],
    listPasskeys: [],
    getUserHandle: [],
    deletePasskey: [],
  };
  /** Errors the next call of a method throws (once each). */
  failures: Partial<Record<Method, Error>> = {};

  startedAppend: StartedAppendCeremony = { appendAllow: true, attestationOptions: ATTESTATION_OPTIONS, detectionTags: [] };
  startedLogin: StartedLoginCeremony = { loginAllow: true, assertionOptions: ASSERTION_OPTIONS, decisionInsights: { tag: 'login-ok', isCdaCandidate: false, preferImmediatelyAvailable: true } };
  startedMediation: StartedMediation = { loginAllow: true, assertionOptions: MEDIATION_OPTIONS };
  /** The passkey the next finished login, mediation or append reports; its userId is filled in from the call where the call names one. */
  passkeyData: Omit<PasskeyData, 'userId'> & { userId?: string } = { id: 'cre-1', username: '', challengeId: 'cha-1', ceremonyType: 'local' };
  /** Set: finishLogin says the passkey no longer exists (the ceremony's 404 credential_not_found, as the adapter reports it). */
  loginPasskeyDeleted = false;
  /** Set: finishMediation says the passkey no longer exists (the ceremony's 200 with error.type credentialDeleted). */
  mediationCredentialDeleted = false;
  /** The passkeys of every user, by user ID. */
  passkeys = new Map<string, Passkey[]>();
  userHandle = 'dXNlci1oYW5kbGU';

  private record<I>(method: Method, call: ServiceCall, input: I): void {
    this.calls[method].push({ call, input });
    const failure = this.failures[method];
    if (failure) {
      delete this.failures[method];
      throw failure;
    }
  }

  private data(userId: string | undefined): PasskeyData {
    return { ...this.passkeyData, userId: this.passkeyData.userId ?? userId ?? '' };
  }

  async startAppend(call: ServiceCall, input: StartAppendInput): Promise<StartedAppendCeremony> {
    this.record('startAppend', call, input);
    return this.startedAppend;
  }

  async finishAppend(call: ServiceCall, input: FinishAppendInput): Promise<{ passkeyData?: PasskeyData }> {
    this.record('finishAppend', call, input);
    return { passkeyData: this.data(input.userId) };
  }

  async startLogin(call: ServiceCall, input: StartLoginInput): Promise<StartedLoginCeremony> {
    this.record('startLogin', call, input);
    return this.startedLogin;
  }

  async finishLogin(call: ServiceCall, input: FinishLoginInput): Promise<FinishedLoginCeremony> {
    this.record('finishLogin', call, input);
    if (this.loginPasskeyDeleted) return { passkeyDeleted: true };
    return { passkeyDeleted: false, passkeyData: this.data(input.userId) };
  }

  async startMediation(call: ServiceCall, input: StartMediationInput): Promise<StartedMediation> {
    this.record('startMediation', call, input);
    return this.startedMediation;
  }

  async finishMediation(call: ServiceCall, input: FinishMediationInput): Promise<FinishedLoginCeremony> {
    this.record('finishMediation', call, input);
    if (this.mediationCredentialDeleted) return { passkeyDeleted: true };
    return { passkeyDeleted: false, passkeyData: this.data(undefined) };
  }

  async recordClientEvent(call: ServiceCall, input: ClientEventInput): Promise<void> {
    this.record('recordClientEvent', call, input);
  }

  async listPasskeys(call: ServiceCall, input: { userId: string; page: number; pageSize: number }) {
    this.record('listPasskeys', call, input);
    const all = this.passkeys.get(input.userId) ?? [];
    const start = (input.page - 1) * input.pageSize;
    return { passkeys: all.slice(start, start + input.pageSize), totalPages: Math.max(1, Math.ceil(all.length / input.pageSize)) };
  }

  async getUserHandle(call: ServiceCall, userId: string): Promise<string> {
    this.record('getUserHandle', call, userId);
    return this.userHandle;
  }

  async deletePasskey(call: ServiceCall, input: { userId: string; passkeyId: string }): Promise<void> {
    this.record('deletePasskey', call, input);
    const mine = this.passkeys.get(input.userId) ?? [];
    this.passkeys.set(
      input.userId,
      mine.filter((p) => p.id !== input.passkeyId),
    );
  }
}

/** A passkey as the ceremony lists it. */
export function passkey(id: string, credentialId: string, created = '2026-11-01T10:00:00'): Passkey {
  return {
    id,
    credentialId,
    attestationType: 'none',
    transport: ['internal', 'hybrid'],
    backupEligible: true,
    backupState: true,
    authenticatorAaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
    sourceOs: 'macOS',
    sourceBrowser: 'Chrome',
    lastUsed: created,
    created,
    status: 'active',
  };
}

/** The challenge service's one-time codes: every code sent is CODE; the test may queue errors for verify. */
export class FakeOneTimeCodes implements OneTimeCodes {
  static readonly CODE = '123456';
  sent: (RecordedCall<{ userId: string; channel: CodeChannel; identifierValue: string }> & SentCode)[] = [];
  verified: RecordedCall<{ userId: string; challengeId: string; value: string }>[] = [];
  notified: RecordedCall<{ userId: string; email: string; passkeyName?: string }>[] = [];
  /** Errors the next verify throws (in order), before looking at the value. */
  verifyFailures: Error[] = [];
  /** Thrown by verify for a value other than CODE. */
  wrongCode: () => Error = () => new Error('wrong code (set wrongCode)');
  private next = 1;

  async send(call: ServiceCall, input: { userId: string; channel: CodeChannel; identifierValue: string }): Promise<SentCode> {
    const sent = { challengeId: `cha-${this.next++}`, expiresAtSeconds: Math.floor(Date.now() / 1000) + 300 };
    this.sent.push({ call, input, ...sent });
    return sent;
  }

  /** Runs after a right code was accepted and before verify resolves: a test's way to race the caller. */
  whileVerifying: (() => Promise<void>) | null = null;

  async verify(call: ServiceCall, input: { userId: string; challengeId: string; value: string }): Promise<VerifiedCode> {
    this.verified.push({ call, input });
    const failure = this.verifyFailures.shift();
    if (failure) throw failure;
    if (input.value !== FakeOneTimeCodes.CODE) throw this.wrongCode();
    const sent = this.sent.find((s) => s.challengeId === input.challengeId && s.input.userId === input.userId);
    if (!sent) throw new Error(`no challenge ${input.challengeId} was sent to user ${input.userId}`);
    const race = this.whileVerifying;
    this.whileVerifying = null;
    if (race) await race();
    // As the challenge service: the value the code was sent to.
    return { identifierValue: sent.input.identifierValue };
  }

  async notifyPasskeyAdded(call: ServiceCall, input: { userId: string; email: string; passkeyName?: string }): Promise<void> {
    this.notified.push({ call, input });
  }
}
