/**
 * What connect's flows need of the challenge service: one-time codes (or links) it creates,
 * limits and delivers, and checks. The code never passes through connect. The adapter
 * (clients/challengeClient.ts) builds the messages, carries the call's identity and turns the
 * service's errors into DomainErrors (RelayedError): a wrong code is invalid_argument, an expired
 * or used-up challenge failed_precondition or not_found, too many attempts resource_exhausted;
 * outages are 'unavailable'.
 */
import type { ServiceCall } from './passkeyCeremonies.js';

export type CodeChannel = 'email_otp' | 'email_link' | 'sms_otp';

export interface SentCode {
  challengeId: string;
  /** When the challenge expires, in seconds since the Unix epoch. */
  expiresAtSeconds: number;
}

export interface VerifiedCode {
  /** The value the challenge service sent the code to (as connect gave it, normalized). */
  identifierValue: string;
}

export interface OneTimeCodes {
  /** Creates a challenge for the user's identifier and delivers it (email or SMS). */
  send(call: ServiceCall, input: { userId: string; channel: CodeChannel; identifierValue: string }): Promise<SentCode>;
  /**
   * Checks a value against the challenge; resolves when it was right (the challenge is used up),
   * with the email address or phone number the challenge was sent to: what the code proves.
   */
  verify(call: ServiceCall, input: { userId: string; challengeId: string; value: string }): Promise<VerifiedCode>;
  /** Emails the user the "a passkey was added" notice (the challenge service's SendNotification, as B3 sendNotification uses it). */
  notifyPasskeyAdded(call: ServiceCall, input: { userId: string; email: string; passkeyName?: string }): Promise<void>;
}
