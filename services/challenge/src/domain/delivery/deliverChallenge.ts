import { failedPrecondition } from '../../../../runtime/errors.js';
import type { ChallengeType } from '../../store/challenges.js';
import { buildEmailLink, emailLinkBase } from './buildEmailLink.js';
import type { DeliveryChannel, DeliveryDeps, EmailMessage, EmailSender, SmsMessage, SmsSender } from './ports.js';
import { sendWithRetry, type RetryContext } from './sendWithRetry.js';
import type { MessageCatalog } from './templates/catalog.js';
import { catalogFor } from './templates/languages.js';
import { renderEmail } from './templates/renderEmail.js';

export interface DeliverChallengeInput {
  type: ChallengeType;
  /** The normalized email address or E.164 number the challenge verifies. */
  identifierValue: string;
  /** The plain value: a 6-digit code, or the email link token. */
  value: string;
  challengeId: string;
  expiresAt: Date;
  /** The challenge's challengeMetadata; `linkUrl` and `language` are read here. */
  metadata?: { linkUrl?: unknown; language?: unknown; [key: string]: unknown };
  /** The project's application name, shown in every message. */
  appName: string;
  /** The project's default email link URL ("" when not configured). */
  emailLinkUrl: string;
}

export interface DeliveryReceipt {
  channel: DeliveryChannel;
  /** How many attempts it took (1 when the first one succeeded). */
  attempts: number;
}

export const channelOf = (type: ChallengeType): DeliveryChannel => (type === 'sms_otp' ? 'sms' : 'email');

function emailSender(deps: Pick<DeliveryDeps, 'email'>, what: string): EmailSender {
  if (deps.email) return deps.email;
  throw failedPrecondition('delivery_not_configured', `${what} cannot be delivered: this service has no SMTP server configured (SMTP_URL)`);
}

function smsSender(deps: Pick<DeliveryDeps, 'sms'>): SmsSender {
  if (deps.sms) return deps.sms;
  throw failedPrecondition(
    'delivery_not_configured',
    'sms_otp challenges cannot be delivered: this service has no SMS provider configured (SMS_WEBHOOK_URL or TWILIO_ACCOUNT_SID)',
  );
}

/**
 * Checks everything delivery needs that does not involve sending: a sender for the channel and,
 * for email links, a usable link URL. Call it before storing a challenge so a challenge that
 * cannot be delivered is never created; deliverChallenge checks the same things again.
 */
export function checkDeliverable(
  deps: Pick<DeliveryDeps, 'email' | 'sms'>,
  input: Pick<DeliverChallengeInput, 'type' | 'metadata' | 'emailLinkUrl'>,
): void {
  if (input.type === 'sms_otp') smsSender(deps);
  else emailSender(deps, `${input.type} challenges`);
  if (input.type === 'email_link') emailLinkBase(input.metadata?.linkUrl, input.emailLinkUrl);
}

function catalogAndLifetime(input: DeliverChallengeInput, now: Date): { catalog: MessageCatalog; lifetime: string } {
  const catalog = catalogFor(typeof input.metadata?.language === 'string' ? input.metadata.language : undefined);
  return { catalog, lifetime: catalog.lifetime(Math.max(0, (input.expiresAt.getTime() - now.getTime()) / 1000)) };
}

/** The email for an email_otp or email_link challenge, in the challenge's language. */
export function challengeEmail(input: DeliverChallengeInput, now: Date): EmailMessage {
  const { catalog, lifetime } = catalogAndLifetime(input, now);
  const appName = input.appName;
  if (input.type === 'email_link') {
    const url = buildEmailLink(emailLinkBase(input.metadata?.linkUrl, input.emailLinkUrl), input.challengeId, input.value);
    return renderEmail(input.identifierValue, catalog.emailLink({ appName, url, lifetime }));
  }
  return renderEmail(input.identifierValue, catalog.emailOtp({ appName, code: input.value, lifetime }));
}

/** The SMS for an sms_otp challenge, in the challenge's language. */
export function challengeSms(input: DeliverChallengeInput, now: Date): SmsMessage {
  const { catalog, lifetime } = catalogAndLifetime(input, now);
  return { to: input.identifierValue, body: catalog.smsOtp({ appName: input.appName, code: input.value, lifetime }), challengeId: input.challengeId };
}

/**
 * Sends a challenge's value to its identifier: email for email_otp and email_link, SMS for
 * sms_otp. Configuration problems (no sender, no link URL) throw before any attempt; send failures
 * are retried with backoff and end in unavailable `delivery_failed`.
 */
export async function deliverChallenge(deps: DeliveryDeps, input: DeliverChallengeInput): Promise<DeliveryReceipt> {
  checkDeliverable(deps, input);
  const now = (deps.now ?? (() => new Date()))();
  const channel = channelOf(input.type);
  const ctx: RetryContext = {
    channel,
    logFields: { challengeId: input.challengeId, type: input.type },
    secrets: [input.value, input.identifierValue],
    what: `the ${input.type} challenge by ${channel === 'email' ? 'email' : 'SMS'}`,
  };
  if (channel === 'sms') {
    const sender = smsSender(deps);
    const message = challengeSms(input, now);
    return { channel, attempts: await sendWithRetry(deps, ctx, () => sender.send(message)) };
  }
  const sender = emailSender(deps, `${input.type} challenges`);
  const message = challengeEmail(input, now);
  return { channel, attempts: await sendWithRetry(deps, ctx, () => sender.send(message)) };
}
