/**
 * Challenge and notification delivery: the domain functions, their ports, and the adapters that
 * implement the ports (SMTP, SMS webhook, Twilio), configured from the environment.
 */
export type { DeliveryChannel, DeliveryDeps, DeliveryLogger, EmailMessage, EmailSender, SmsMessage, SmsSender } from '../domain/delivery/ports.js';
export {
  challengeEmail,
  challengeSms,
  channelOf,
  checkDeliverable,
  deliverChallenge,
  type DeliverChallengeInput,
  type DeliveryReceipt,
} from '../domain/delivery/deliverChallenge.js';
export {
  notificationMessage,
  sendNotification,
  type NotificationKind,
  type PasskeyAddedDetails,
  type SendNotificationInput,
} from '../domain/delivery/sendNotification.js';
export { DEFAULT_RETRY_DELAYS_MS } from '../domain/delivery/sendWithRetry.js';
export { buildEmailLink, emailLinkBase } from '../domain/delivery/buildEmailLink.js';
export { SUPPORTED_LANGUAGES } from '../domain/delivery/templates/languages.js';
export { escapeHtml } from '../domain/delivery/templates/renderEmail.js';
export {
  DELIVERY_ENV_VARS,
  createDeliveryFromEnv,
  readDeliveryEnv,
  type Delivery,
  type DeliveryConfig,
  type DeliveryEnvVar,
} from './createDeliveryFromEnv.js';
export { smtpEmailSender, type SmtpEmailSender, type SmtpEmailSenderOptions } from './smtpEmailSender.js';
export { smsWebhookSender, type SmsWebhookOptions, type SmsWebhookPayload } from './smsWebhookSender.js';
export { TWILIO_DEFAULT_BASE_URL, twilioSmsSender, type TwilioOptions } from './twilioSmsSender.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  signWebhook,
  verifyWebhookSignature,
  type WebhookCheck,
} from './webhookSignature.js';
