/** SmsSender for Twilio's Messages API (or anything speaking its format at TWILIO_BASE_URL). */
import type { SmsSender } from '../domain/delivery/ports.js';
import { postWithTimeout } from './postWithTimeout.js';

export const TWILIO_DEFAULT_BASE_URL = 'https://api.twilio.com';

export interface TwilioOptions {
  accountSid: string;
  authToken: string;
  /** A sender phone number in E.164, or a Messaging Service SID (`MG…`), which Twilio takes as MessagingServiceSid. */
  from: string;
  baseUrl?: string;
  timeoutMs?: number;
}

/** Twilio's error body is `{code, message, more_info, status}`; its code and message say what to fix. */
function explainTwilioError(body: string): string {
  try {
    const parsed = JSON.parse(body) as { code?: unknown; message?: unknown };
    if (typeof parsed.message === 'string') return `${parsed.message.slice(0, 200)}${parsed.code ? ` (Twilio error ${String(parsed.code)})` : ''}`;
  } catch {
    // Not JSON (a proxy's HTML error page, say): fall through to the raw text.
  }
  return body.slice(0, 200);
}

export function twilioSmsSender(options: TwilioOptions): SmsSender {
  const base = (options.baseUrl ?? TWILIO_DEFAULT_BASE_URL).replace(/\/+$/, '');
  const url = `${base}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`;
  const senderField = options.from.startsWith('MG') ? 'MessagingServiceSid' : 'From';
  return {
    async send(message) {
      await postWithTimeout(url, {
        provider: 'Twilio',
        timeoutMs: options.timeoutMs ?? 10_000,
        body: new URLSearchParams([
          ['To', message.to],
          [senderField, options.from],
          ['Body', message.body],
        ]).toString(),
        headers: {
          authorization,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          'user-agent': 'passkeyauth-challenge',
        },
        explain: explainTwilioError,
      });
    },
  };
}
