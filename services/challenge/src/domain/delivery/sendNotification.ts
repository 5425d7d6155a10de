import { failedPrecondition, invalidArgument } from '../../../../runtime/errors.js';
import type { DeliveryDeps, EmailMessage } from './ports.js';
import { sendWithRetry } from './sendWithRetry.js';
import { catalogFor } from './templates/languages.js';
import { renderEmail } from './templates/renderEmail.js';

export type NotificationKind = 'passkey_added';

/** What the "passkey added" email tells the user; every field is optional and shown only when present. */
export interface PasskeyAddedDetails {
  /** The authenticator's name, e.g. "iCloud Keychain". */
  passkeyName?: string;
  /** Browser and operating system, e.g. "Chrome 124 on macOS". */
  device?: string;
  addedAt?: Date;
}

export interface SendNotificationInput {
  email: string;
  kind: NotificationKind;
  details: PasskeyAddedDetails;
  appName: string;
  language?: string;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;

export function notificationMessage(input: SendNotificationInput): EmailMessage {
  const catalog = catalogFor(input.language);
  const { passkeyName, device, addedAt } = input.details;
  const facts = { passkeyName, device, addedAt: addedAt ? catalog.dateTime(addedAt) : undefined };
  return renderEmail(input.email.trim(), catalog.passkeyAdded({ appName: input.appName, facts }));
}

/**
 * Emails a security notification to a user (today: a passkey was added to their account), with
 * the same retry and error behaviour as challenge delivery.
 */
export async function sendNotification(deps: DeliveryDeps, input: SendNotificationInput): Promise<{ attempts: number }> {
  if (input.kind !== 'passkey_added') {
    throw invalidArgument('validation_error', `unknown notification kind "${String(input.kind)}"; expected passkey_added`, [
      { field: 'kind', message: 'must be passkey_added' },
    ]);
  }
  if (!EMAIL.test(input.email.trim())) {
    throw invalidArgument('validation_error', 'the notification recipient must be an email address', [{ field: 'email', message: 'must be an email address' }]);
  }
  if (!deps.email) {
    throw failedPrecondition('delivery_not_configured', 'notification emails cannot be sent: this service has no SMTP server configured (SMTP_URL)');
  }
  const message = notificationMessage(input);
  const email = deps.email;
  const attempts = await sendWithRetry(
    deps,
    { channel: 'email', logFields: { kind: input.kind }, secrets: [message.to], what: `the ${input.kind} notification by email` },
    () => email.send(message),
  );
  return { attempts };
}
