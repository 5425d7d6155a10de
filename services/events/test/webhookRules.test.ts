/** The events service's rules without a store: signatures, the retry schedule, the address policy, sealing. */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../src/domain/addressPolicy.js';
import { checkWebhookUrl } from '../src/domain/checkWebhookUrl.js';
import { deliveryHeaders } from '../src/domain/deliverDue.js';
import type { WebhookEndpointRecord } from '../src/domain/ports.js';
import { nextAttemptAt, parseRetrySchedule, STANDARD_RETRY_DELAYS_SECONDS } from '../src/domain/retrySchedule.js';
import { newSigningSecret, openSecret, sealSecret, secretAad } from '../src/domain/sealSecret.js';

const masterKey = Buffer.alloc(32, 7);

function endpoint(over: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  const now = new Date();
  return {
    _id: 'whe-1',
    projectId: 'pro-1',
    url: 'https://hooks.example.com/',
    basicAuthUsername: '',
    signingSecret: sealSecret(masterKey, secretAad('pro-1', 'whe-1', 'signing'), 'unused'),
    subscribedEvents: ['user.created'],
    customHeaders: {},
    enabled: true,
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

describe('signatures', () => {
  it('verify with the standardwebhooks library, and fail for another body, secret or stale timestamp', () => {
    const secret = newSigningSecret();
    const body = JSON.stringify({ type: 'user.created', data: { userID: 'usr-1' } });
    const headers = deliveryHeaders(endpoint(), { eventId: 'evt-1', type: 'user.created', body }, secret, null, new Date());
    expect(headers['webhook-id']).toBe('evt-1');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(headers['x-corbado-webhook-event']).toBe('user.created');
    expect(headers).not.toHaveProperty('authorization');
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('usr-1', 'usr-2'), headers)).toThrow();
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
    const old = deliveryHeaders(endpoint(), { eventId: 'evt-1', type: 'user.created', body }, secret, null, new Date(Date.now() - 10 * 60_000));
    expect(() => new Webhook(secret).verify(body, old)).toThrow();
  });

  it('sends basic auth only with both credentials, and custom headers beside the fixed ones', () => {
    const headers = deliveryHeaders(endpoint({ basicAuthUsername: 'u', customHeaders: { 'X-App': 'a' } }), { eventId: 'evt-1', type: 'user.created', body: '{}' }, newSigningSecret(), 'p w', new Date());
    expect(headers.authorization).toBe(`Basic ${Buffer.from('u:p w').toString('base64')}`);
    expect(headers['X-App']).toBe('a');
  });

  it('makes secrets of 32 random bytes', () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(a);
  });
});

describe('sealed secrets', () => {
  it('open only with the same master key and binding', () => {
    const sealed = sealSecret(masterKey, secretAad('pro-1', 'whe-1', 'signing'), 'whsec_x');
    expect(JSON.stringify(sealed)).not.toContain('whsec_x');
    expect(openSecret(masterKey, secretAad('pro-1', 'whe-1', 'signing'), sealed)).toBe('whsec_x');
    expect(() => openSecret(masterKey, secretAad('pro-2', 'whe-1', 'signing'), sealed)).toThrow();
    expect(() => openSecret(masterKey, secretAad('pro-1', 'whe-1', 'basic'), sealed)).toThrow();
    expect(() => openSecret(Buffer.alloc(32, 8), secretAad('pro-1', 'whe-1', 'signing'), sealed)).toThrow();
  });
});

describe('retry schedule', () => {
  it('is the Standard Webhooks schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, then none', () => {
    const now = new Date(0);
    const delays = Array.from({ length: 9 }, (_, i) => nextAttemptAt(STANDARD_RETRY_DELAYS_SECONDS, i + 1, now)!.getTime() / 1000);
    expect(delays).toEqual([5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]);
    // Ten attempts in all: after the tenth failure nothing is left.
    expect(nextAttemptAt(STANDARD_RETRY_DELAYS_SECONDS, 10, now)).toBeNull();
  });

  it('reads an override and refuses nonsense', () => {
    expect(parseRetrySchedule(undefined)).toEqual([...STANDARD_RETRY_DELAYS_SECONDS]);
    expect(parseRetrySchedule('0.5, 1')).toEqual([0.5, 1]);
    expect(() => parseRetrySchedule('1,x')).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => parseRetrySchedule('-1')).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });
});

describe('address policy', () => {
  it('refuses loopback, private, link-local, CGNAT, unspecified and multicast addresses', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fd00::1', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip']) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });

  it('allows public addresses', () => {
    for (const a of ['93.184.216.34', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(a), a).toBe(true);
  });
});

describe('webhook URLs', () => {
  const resolveTo = (addresses: string[]) => async () => addresses;
  const fieldOf = async (p: Promise<unknown>) => {
    try {
      await p;
      return null;
    } catch (err) {
      return (err as { validation: { field: string }[] }).validation.map((v) => v.field);
    }
  };

  it('must be http(s) without credentials', async () => {
    for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url', 'https://user:pw@example.com/']) {
      expect(await fieldOf(checkWebhookUrl(url, true, resolveTo(['1.1.1.1']))), url).toEqual(['url']);
    }
  });

  it('refuses a host resolving to any private address unless private addresses are allowed', async () => {
    expect(await fieldOf(checkWebhookUrl('https://hooks.example.com/', false, resolveTo(['93.184.216.34', '10.0.0.5'])))).toEqual(['url']);
    expect(await fieldOf(checkWebhookUrl('http://127.0.0.1:9000/', false, resolveTo(['127.0.0.1'])))).toEqual(['url']);
    expect(await fieldOf(checkWebhookUrl('https://nowhere.invalid/', false, async () => Promise.reject(new Error('ENOTFOUND'))))).toEqual(['url']);
    expect((await checkWebhookUrl('https://hooks.example.com/x', false, resolveTo(['93.184.216.34']))).href).toBe('https://hooks.example.com/x');
    expect((await checkWebhookUrl('http://127.0.0.1:9000/', true, resolveTo(['127.0.0.1']))).href).toBe('http://127.0.0.1:9000/');
  });
});
