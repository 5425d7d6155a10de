/** createDeliveryFromEnv: which senders an environment configures, and the messages for every mistake. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../runtime/config.js';
import { DELIVERY_ENV_VARS, createDeliveryFromEnv, readDeliveryEnv } from '../src/delivery/index.js';

const SID = `AC${'0123456789abcdef'.repeat(2)}`;
const SECRET = 'a'.repeat(32);

describe('createDeliveryFromEnv', () => {
  it('configures nothing from an empty environment', () => {
    const delivery = createDeliveryFromEnv({});
    expect(delivery.email).toBeUndefined();
    expect(delivery.sms).toBeUndefined();
    expect(delivery.summary).toEqual({ email: 'off', sms: 'off' });
    delivery.close();
  });

  it('builds SMTP and webhook senders, and summarizes them without credentials', () => {
    const delivery = createDeliveryFromEnv({
      SMTP_URL: 'smtps://user:p%40ss@mail.example.com:465',
      EMAIL_FROM: 'Example <no-reply@example.com>',
      SMS_WEBHOOK_URL: 'https://hooks.example.com/sms/s3cr3t-path',
      SMS_WEBHOOK_SECRET: SECRET,
    });
    expect(typeof delivery.email?.send).toBe('function');
    expect(typeof delivery.sms?.send).toBe('function');
    expect(delivery.summary).toEqual({ email: 'smtp smtps://mail.example.com:465', sms: 'webhook https://hooks.example.com' });
    delivery.close();
  });

  it('builds a Twilio sender with a Messaging Service SID and a custom base URL', () => {
    const delivery = createDeliveryFromEnv({
      TWILIO_ACCOUNT_SID: SID,
      TWILIO_AUTH_TOKEN: 'token',
      TWILIO_FROM: `MG${'0123456789abcdef'.repeat(2)}`,
      TWILIO_BASE_URL: 'http://127.0.0.1:9999',
    });
    expect(delivery.sms).toBeDefined();
    expect(delivery.summary.sms).toBe('twilio http://127.0.0.1:9999');
  });

  it('lists every problem at once, each saying how to fix it', () => {
    const { problems } = readDeliveryEnv({
      SMTP_URL: 'http://mail.example.com',
      SMS_WEBHOOK_URL: 'ftp://hooks.example.com',
      SMS_WEBHOOK_SECRET: 'short',
      TWILIO_ACCOUNT_SID: 'AC123',
      TWILIO_FROM: '0151 123',
      DELIVERY_TIMEOUT_MS: '5',
    });
    expect(problems).toEqual([
      'DELIVERY_TIMEOUT_MS must be an integer in 1000..60000, got "5"',
      'SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587',
      'EMAIL_FROM is required when SMTP_URL is set, e.g. "Example <no-reply@example.com>"',
      'configure one SMS provider: SMS_WEBHOOK_URL (webhook) or TWILIO_ACCOUNT_SID/TWILIO_AUTH_TOKEN/TWILIO_FROM (Twilio), not both',
      'SMS_WEBHOOK_URL must be an http(s) URL, got "ftp://hooks.example.com"',
      'SMS_WEBHOOK_SECRET must be at least 32 characters, got 5',
      'TWILIO_AUTH_TOKEN is required when Twilio is configured (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM)',
      'TWILIO_ACCOUNT_SID must be "AC" followed by 32 hex digits',
      'TWILIO_FROM must be an E.164 phone number (+15551234567) or a Messaging Service SID (MG…)',
    ]);
  });

  it('flags settings that would silently do nothing', () => {
    expect(readDeliveryEnv({ EMAIL_FROM: 'a@example.com' }).problems).toEqual([
      'EMAIL_FROM is set but SMTP_URL is not: set SMTP_URL to send email, or unset EMAIL_FROM',
    ]);
    expect(readDeliveryEnv({ SMS_WEBHOOK_SECRET: SECRET }).problems).toEqual(['SMS_WEBHOOK_SECRET is set but SMS_WEBHOOK_URL is not']);
    expect(readDeliveryEnv({ TWILIO_BASE_URL: 'https://x.example.com' }).problems).toEqual(['TWILIO_BASE_URL is set but TWILIO_ACCOUNT_SID is not']);
    expect(readDeliveryEnv({ SMTP_URL: 'smtp://localhost:25', EMAIL_FROM: 'Bad\nHeader <a@example.com>' }).problems).toEqual([
      'EMAIL_FROM must be an address or "Name <address>", got "Bad\nHeader <a@example.com>"',
    ]);
  });

  it('throws one ConfigError with all problems', () => {
    expect(() => createDeliveryFromEnv({ SMTP_URL: 'smtp://localhost', SMS_WEBHOOK_URL: 'https://x.example.com' })).toThrow(ConfigError);
    expect(() => createDeliveryFromEnv({ SMTP_URL: 'smtp://localhost', SMS_WEBHOOK_URL: 'https://x.example.com' })).toThrow(
      /invalid delivery configuration:\n {2}- EMAIL_FROM is required[^\n]*\n {2}- SMS_WEBHOOK_SECRET is required/,
    );
  });

  it('documents every variable it reads', () => {
    expect(DELIVERY_ENV_VARS.map((v) => v.name)).toEqual([
      'SMTP_URL',
      'EMAIL_FROM',
      'SMS_WEBHOOK_URL',
      'SMS_WEBHOOK_SECRET',
      'TWILIO_ACCOUNT_SID',
      'TWILIO_AUTH_TOKEN',
      'TWILIO_FROM',
      'TWILIO_BASE_URL',
      'DELIVERY_TIMEOUT_MS',
    ]);
  });
});
