/**
 * SmsSender that hands each message to an HTTP endpoint of the operator's choosing (their own SMS
 * gateway, a queue, a chat channel in development). Requests are signed; see webhookSignature.ts
 * for what a receiver checks.
 */
import type { SmsSender } from '../domain/delivery/ports.js';
import { postWithTimeout } from './postWithTimeout.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signWebhook } from './webhookSignature.js';

export interface SmsWebhookOptions {
  url: string;
  secret: string;
  timeoutMs?: number;
  now?: () => Date;
}

/** The JSON body of a webhook request. */
export interface SmsWebhookPayload {
  to: string;
  body: string;
  /** Present for challenge messages; a retried delivery repeats it, so receivers can drop duplicates. */
  challengeID?: string;
  /** ISO 8601 time the request was made. */
  sentAt: string;
}

export function smsWebhookSender(options: SmsWebhookOptions): SmsSender {
  const now = options.now ?? (() => new Date());
  return {
    async send(message) {
      const at = now();
      const payload: SmsWebhookPayload = {
        to: message.to,
        body: message.body,
        ...(message.challengeId ? { challengeID: message.challengeId } : {}),
        sentAt: at.toISOString(),
      };
      const body = JSON.stringify(payload);
      const timestamp = Math.floor(at.getTime() / 1000);
      await postWithTimeout(options.url, {
        provider: 'SMS webhook',
        timeoutMs: options.timeoutMs ?? 10_000,
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'passkeyauth-challenge',
          [TIMESTAMP_HEADER]: String(timestamp),
          [SIGNATURE_HEADER]: signWebhook(options.secret, timestamp, body),
        },
      });
    },
  };
}
