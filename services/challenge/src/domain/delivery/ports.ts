/**
 * What challenge and notification delivery needs from the outside world: a way to send an email
 * and a way to send an SMS. Adapters (SMTP, SMS webhook, Twilio) live in ../../delivery/.
 */

export interface EmailMessage {
  /** One recipient address. */
  to: string;
  subject: string;
  /** Plain-text body, for clients that do not render HTML and for accessibility. */
  text: string;
  html: string;
}

export interface EmailSender {
  /** Resolves once the message was handed to the mail server; throws if it was not. */
  send(message: EmailMessage): Promise<void>;
}

export interface SmsMessage {
  /** E.164 phone number. */
  to: string;
  body: string;
  /** The challenge the message belongs to, for providers that can pass it on (the webhook does). */
  challengeId?: string;
}

export interface SmsSender {
  /** Resolves once the provider accepted the message; throws if it did not. */
  send(message: SmsMessage): Promise<void>;
}

/**
 * The log calls delivery makes; pino's Logger satisfies it. Kept this narrow so the domain does
 * not depend on a logging library.
 */
export interface DeliveryLogger {
  debug(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export type DeliveryChannel = 'email' | 'sms';

/** Counts deliveries (the metric challenge_deliveries_total); prom-client's Counter satisfies it. */
export interface DeliveryCounter {
  inc(labels: { channel: DeliveryChannel; result: 'sent' | 'failed' }): void;
}

export interface DeliveryDeps {
  /** Absent when SMTP is not configured: email challenges then fail before anything is stored. */
  email?: EmailSender;
  /** Absent when no SMS provider is configured. */
  sms?: SmsSender;
  logger: DeliveryLogger;
  /** Clock for "expires in N minutes"; defaults to the system clock. */
  now?: () => Date;
  /** Waits between attempts; tests pass one that does not wait. */
  sleep?: (ms: number) => Promise<void>;
  /** Pause before each retry; its length + 1 is the number of attempts. Defaults to DEFAULT_RETRY_DELAYS_MS. */
  retryDelaysMs?: readonly number[];
  /** Each message is counted once, when it was sent or when the last attempt failed. */
  deliveries?: DeliveryCounter;
}
