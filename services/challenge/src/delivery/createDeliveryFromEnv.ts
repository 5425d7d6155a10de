/**
 * Builds the delivery adapters from environment variables. Every problem is collected and
 * reported together (like runtime/config's EnvReader), so a misconfigured service stops at
 * start-up with the full list instead of failing on the first email.
 */
import { ConfigError } from '../../../runtime/config.js';
import type { SmsSender } from '../domain/delivery/ports.js';
import { smsWebhookSender } from './smsWebhookSender.js';
import { smtpEmailSender, type SmtpEmailSender } from './smtpEmailSender.js';
import { twilioSmsSender } from './twilioSmsSender.js';

export interface DeliveryEnvVar {
  name: string;
  /** When it must be set. */
  required: string;
  description: string;
}

/** Every variable read here, for docs/operations.md ("Configuration") and for `--help`-style listings. */
export const DELIVERY_ENV_VARS: readonly DeliveryEnvVar[] = [
  {
    name: 'SMTP_URL',
    required: 'for email delivery',
    description:
      'SMTP server as a URL: smtp://user:pass@host:587 (STARTTLS when offered) or smtps://user:pass@host:465; nodemailer URL options such as ?pool=true apply. Unset: the service cannot send email challenges or notifications.',
  },
  { name: 'EMAIL_FROM', required: 'with SMTP_URL', description: 'From header of every email, e.g. "Example <no-reply@example.com>".' },
  {
    name: 'SMS_WEBHOOK_URL',
    required: 'for SMS delivery via webhook',
    description: 'http(s) URL that receives each SMS as a signed JSON POST {to, body, challengeID?, sentAt}.',
  },
  {
    name: 'SMS_WEBHOOK_SECRET',
    required: 'with SMS_WEBHOOK_URL',
    description: 'HMAC-SHA256 key (at least 32 characters, e.g. `openssl rand -hex 32`) for the X-Passkeyauth-Signature header.',
  },
  { name: 'TWILIO_ACCOUNT_SID', required: 'for SMS delivery via Twilio', description: 'Twilio Account SID (AC…); selects Twilio as the SMS provider.' },
  { name: 'TWILIO_AUTH_TOKEN', required: 'with TWILIO_ACCOUNT_SID', description: 'Twilio Auth Token (Basic auth password).' },
  {
    name: 'TWILIO_FROM',
    required: 'with TWILIO_ACCOUNT_SID',
    description: 'Sender: an E.164 phone number (+15551234567) or a Messaging Service SID (MG…).',
  },
  {
    name: 'TWILIO_BASE_URL',
    required: 'no',
    description: 'Base URL of the Messages API (default https://api.twilio.com); point it at a compatible gateway or a test double.',
  },
  { name: 'DELIVERY_TIMEOUT_MS', required: 'no', description: 'Per-attempt time limit for SMTP and SMS provider calls, 1000–60000 (default 10000).' },
];

export interface DeliveryConfig {
  smtp?: { url: string; from: string };
  sms?: { provider: 'webhook'; url: string; secret: string } | { provider: 'twilio'; accountSid: string; authToken: string; from: string; baseUrl?: string };
  timeoutMs: number;
}

export interface Delivery {
  email?: SmtpEmailSender;
  sms?: SmsSender;
  /** What is configured, without credentials, for the start-up log line. */
  summary: { email: string; sms: string };
  /** Releases SMTP connections (on shutdown). */
  close(): void;
}

type Env = Record<string, string | undefined>;

const EMAIL_FROM = /^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/;
const E164 = /^\+[1-9][0-9]{6,14}$/;

const get = (env: Env, name: string): string | undefined => {
  const v = env[name]?.trim();
  return v ? v : undefined;
};

function httpUrl(value: string, protocols: string[]): URL | null {
  if (!URL.canParse(value)) return null;
  const url = new URL(value);
  return protocols.includes(url.protocol) ? url : null;
}

/** Reads and checks the delivery variables; `problems` lists each one that is wrong, with how to fix it. */
export function readDeliveryEnv(env: Env): { config: DeliveryConfig; problems: string[] } {
  const problems: string[] = [];
  const config: DeliveryConfig = { timeoutMs: 10_000 };

  const rawTimeout = get(env, 'DELIVERY_TIMEOUT_MS');
  if (rawTimeout !== undefined) {
    const n = Number(rawTimeout);
    if (!Number.isInteger(n) || n < 1000 || n > 60_000) problems.push(`DELIVERY_TIMEOUT_MS must be an integer in 1000..60000, got "${rawTimeout}"`);
    else config.timeoutMs = n;
  }

  const smtpUrl = get(env, 'SMTP_URL');
  const from = get(env, 'EMAIL_FROM');
  if (smtpUrl) {
    if (!httpUrl(smtpUrl, ['smtp:', 'smtps:'])) problems.push('SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587');
    if (!from) problems.push('EMAIL_FROM is required when SMTP_URL is set, e.g. "Example <no-reply@example.com>"');
    else if (!EMAIL_FROM.test(from)) problems.push(`EMAIL_FROM must be an address or "Name <address>", got "${from}"`);
    config.smtp = { url: smtpUrl, from: from ?? '' };
  } else if (from) {
    problems.push('EMAIL_FROM is set but SMTP_URL is not: set SMTP_URL to send email, or unset EMAIL_FROM');
  }

  const webhookUrl = get(env, 'SMS_WEBHOOK_URL');
  const webhookSecret = get(env, 'SMS_WEBHOOK_SECRET');
  const twilioVars = ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const;
  const twilioSet = twilioVars.some((name) => get(env, name));
  if (webhookUrl && twilioSet) {
    problems.push('configure one SMS provider: SMS_WEBHOOK_URL (webhook) or TWILIO_ACCOUNT_SID/TWILIO_AUTH_TOKEN/TWILIO_FROM (Twilio), not both');
  }
  if (webhookUrl) {
    if (!httpUrl(webhookUrl, ['http:', 'https:'])) problems.push(`SMS_WEBHOOK_URL must be an http(s) URL, got "${webhookUrl}"`);
    if (!webhookSecret) problems.push('SMS_WEBHOOK_SECRET is required when SMS_WEBHOOK_URL is set (e.g. `openssl rand -hex 32`)');
    else if (webhookSecret.length < 32) problems.push(`SMS_WEBHOOK_SECRET must be at least 32 characters, got ${webhookSecret.length}`);
    if (!twilioSet) config.sms = { provider: 'webhook', url: webhookUrl, secret: webhookSecret ?? '' };
  } else if (webhookSecret) {
    problems.push('SMS_WEBHOOK_SECRET is set but SMS_WEBHOOK_URL is not');
  }
  if (twilioSet) {
    for (const name of twilioVars) if (!get(env, name)) problems.push(`${name} is required when Twilio is configured (${twilioVars.join(', ')})`);
    const accountSid = get(env, 'TWILIO_ACCOUNT_SID') ?? '';
    const twilioFrom = get(env, 'TWILIO_FROM') ?? '';
    if (accountSid && !/^AC[0-9a-fA-F]{32}$/.test(accountSid)) problems.push('TWILIO_ACCOUNT_SID must be "AC" followed by 32 hex digits');
    if (twilioFrom && !E164.test(twilioFrom) && !/^MG[0-9a-fA-F]{32}$/.test(twilioFrom)) {
      problems.push('TWILIO_FROM must be an E.164 phone number (+15551234567) or a Messaging Service SID (MG…)');
    }
    const baseUrl = get(env, 'TWILIO_BASE_URL');
    if (baseUrl && !httpUrl(baseUrl, ['http:', 'https:'])) problems.push(`TWILIO_BASE_URL must be an http(s) URL, got "${baseUrl}"`);
    if (!webhookUrl) config.sms = { provider: 'twilio', accountSid, authToken: get(env, 'TWILIO_AUTH_TOKEN') ?? '', from: twilioFrom, baseUrl };
  } else if (get(env, 'TWILIO_BASE_URL')) {
    problems.push('TWILIO_BASE_URL is set but TWILIO_ACCOUNT_SID is not');
  }
  return { config, problems };
}

/** Where a URL points, without credentials, path secrets or query. */
const describeUrl = (raw: string) => (URL.canParse(raw) ? `${new URL(raw).protocol}//${new URL(raw).host}` : 'invalid URL');

/**
 * The senders the environment configures: `email` when SMTP_URL is set, `sms` when a webhook or
 * Twilio is. Throws ConfigError listing every problem.
 */
export function createDeliveryFromEnv(env: Env = process.env): Delivery {
  const { config, problems } = readDeliveryEnv(env);
  if (problems.length) throw new ConfigError(`invalid delivery configuration:\n  - ${problems.join('\n  - ')}`);
  const email = config.smtp ? smtpEmailSender(config.smtp.url, config.smtp.from, { timeoutMs: config.timeoutMs }) : undefined;
  let sms: SmsSender | undefined;
  let smsSummary = 'off';
  if (config.sms?.provider === 'webhook') {
    sms = smsWebhookSender({ url: config.sms.url, secret: config.sms.secret, timeoutMs: config.timeoutMs });
    smsSummary = `webhook ${describeUrl(config.sms.url)}`;
  } else if (config.sms?.provider === 'twilio') {
    sms = twilioSmsSender({ ...config.sms, timeoutMs: config.timeoutMs });
    smsSummary = `twilio ${describeUrl(config.sms.baseUrl ?? 'https://api.twilio.com')}`;
  }
  return {
    email,
    sms,
    summary: { email: config.smtp ? `smtp ${describeUrl(config.smtp.url)}` : 'off', sms: smsSummary },
    close: () => email?.close(),
  };
}
