/**
 * The metrics added for operations: ceremony outcomes (counted where ceremony events are recorded),
 * challenge deliveries (counted once per message by sendWithRetry) and store latency (driver
 * command monitoring in connectStore), each read back from the process's registry.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedMongo, type EmbeddedMongo } from '@passkeyauth/embedded-mongo';
import type { CeremonyOutcomeCounter } from '../../services/ceremony/src/domain/deps.js';
import type { CeremonyEvent, InsightsService } from '../../services/ceremony/src/domain/insights/types.js';
import { recordEvent } from '../../services/ceremony/src/domain/recordEvent.js';
import { deliverChallenge, type DeliverChallengeInput } from '../../services/challenge/src/domain/delivery/deliverChallenge.js';
import type { DeliveryDeps } from '../../services/challenge/src/domain/delivery/ports.js';
import { sendNotification } from '../../services/challenge/src/domain/delivery/sendNotification.js';
import { ceremonyOutcomeCounter, challengeDeliveryCounter, createMetrics, type Metrics } from '../../services/runtime/metrics.js';
import { connectStore } from '../../services/runtime/mongo.js';

const silent = pino({ level: 'silent' });

/** Current values of a metric as "label=value,…" → value (histograms: their _count series). */
async function series(metrics: Metrics, name: string): Promise<Record<string, number>> {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) return {};
  const data = await metric.get();
  const out: Record<string, number> = {};
  for (const v of data.values) {
    const sample = v as { metricName?: string; labels: Record<string, string | number>; value: number };
    if (sample.metricName && sample.metricName !== `${name}_count`) continue;
    const key = Object.entries(sample.labels)
      .filter(([k]) => k !== 'le')
      .map(([k, val]) => `${k}=${val}`)
      .join(',');
    out[key] = (out[key] ?? 0) + sample.value;
  }
  return out;
}

describe('ceremony_outcomes_total', () => {
  const event = (type: CeremonyEvent['type'], reason?: string): CeremonyEvent => ({ projectId: 'pro-1', userId: 'usr-1', type, at: new Date(), ...(reason ? { reason } : {}) });

  it('counts every finishing event by operation, outcome and reason, and nothing for started or management events', async () => {
    const metrics = createMetrics('ceremony');
    const recorded: string[] = [];
    const insights = { recordEvent: async (e: CeremonyEvent) => void recorded.push(e.type) } as unknown as InsightsService;
    const deps = { insights, logger: silent, outcomes: ceremonyOutcomeCounter(metrics) };
    await recordEvent(deps, event('append-started'));
    await recordEvent(deps, event('append-succeeded'));
    await recordEvent(deps, event('append-failed', 'origin_not_allowed'));
    await recordEvent(deps, event('login-succeeded'));
    await recordEvent(deps, event('login-succeeded'));
    await recordEvent(deps, event('login-failed', 'credential_not_found'));
    await recordEvent(deps, event('clone-detected', 'counter_regression'), 'login');
    await recordEvent(deps, event('mediation-succeeded'));
    await recordEvent(deps, event('mediation-failed', 'credential-deleted'));
    await recordEvent(deps, event('mediation-failed'));
    await recordEvent(deps, event('credential-deleted'));
    expect(recorded).toHaveLength(11);
    expect(await series(metrics, 'ceremony_outcomes_total')).toEqual({
      'operation=append,outcome=success,reason=': 1,
      'operation=append,outcome=failure,reason=origin_not_allowed': 1,
      'operation=login,outcome=success,reason=': 2,
      'operation=login,outcome=failure,reason=credential_not_found': 1,
      'operation=login,outcome=failure,reason=counter_regression': 1,
      'operation=mediation,outcome=success,reason=': 1,
      'operation=mediation,outcome=failure,reason=credential-deleted': 1,
      'operation=mediation,outcome=failure,reason=unknown': 1,
    });
  });

  it('counts an outcome even when its event cannot be stored, and works without a counter', async () => {
    const insights = { recordEvent: async () => Promise.reject(new Error('store down')) } as unknown as InsightsService;
    const counted: Parameters<CeremonyOutcomeCounter['inc']>[0][] = [];
    await recordEvent({ insights, logger: silent, outcomes: { inc: (labels) => void counted.push(labels) } }, event('login-failed', 'signature_invalid'));
    expect(counted).toEqual([{ operation: 'login', outcome: 'failure', reason: 'signature_invalid' }]);
    await expect(recordEvent({ insights, logger: silent }, event('login-succeeded'))).resolves.toBeUndefined();
  });
});

describe('challenge_deliveries_total', () => {
  const input: DeliverChallengeInput = {
    type: 'email_otp',
    identifierValue: 'ada@example.com',
    value: '482915',
    challengeId: 'cha-11111111111111111111',
    expiresAt: new Date(Date.now() + 300_000),
    appName: 'Acme Shop',
    emailLinkUrl: '',
  };

  it('counts each message once, after its retries: sent or failed, by channel', async () => {
    const metrics = createMetrics('challenge');
    let failEmail = 0;
    let attempts = 0;
    const deps: DeliveryDeps = {
      email: {
        send: async () => {
          attempts++;
          if (failEmail > 0) {
            failEmail--;
            throw new Error('451 try later');
          }
        },
      },
      sms: { send: async () => Promise.reject(new Error('provider down')) },
      logger: silent,
      sleep: async () => undefined,
      deliveries: challengeDeliveryCounter(metrics),
    };
    await deliverChallenge(deps, input);
    failEmail = 1;
    await deliverChallenge(deps, input); // fails once, then sent: one "sent"
    await sendNotification(deps, { email: 'ada@example.com', kind: 'passkey_added', details: {}, appName: 'Acme Shop' });
    await expect(deliverChallenge(deps, { ...input, type: 'sms_otp', identifierValue: '+4915112345678' })).rejects.toThrow(/could not deliver/);
    failEmail = 3;
    await expect(deliverChallenge(deps, input)).rejects.toThrow(/could not deliver/);
    expect(attempts).toBe(1 + 2 + 1 + 3);
    expect(await series(metrics, 'challenge_deliveries_total')).toEqual({
      'channel=email,result=sent': 3,
      'channel=sms,result=failed': 1,
      'channel=email,result=failed': 1,
    });
  });

  it('counts nothing when delivery is not configured (refused before any attempt)', async () => {
    const metrics = createMetrics('challenge');
    await expect(deliverChallenge({ logger: silent, deliveries: challengeDeliveryCounter(metrics) }, input)).rejects.toThrow(/SMTP_URL/);
    expect(await series(metrics, 'challenge_deliveries_total')).toEqual({});
  });
});

describe('store_operation_duration_seconds', () => {
  let embedded: EmbeddedMongo;
  beforeAll(async () => {
    embedded = await startEmbeddedMongo({ port: 0 });
  });
  afterAll(async () => embedded?.stop());

  it('times every driver command by command name, successes and failures, when connectStore is given the metrics', async () => {
    const metrics = createMetrics('connect');
    const uri = new URL(embedded.uri);
    uri.pathname = `/metrics_${randomBytes(4).toString('hex')}`;
    const store = await connectStore(uri.toString(), uri.pathname.slice(1), { things: [{ key: { name: 1 }, name: 'name_1', unique: true }] }, metrics);
    try {
      const things = store.db.collection<{ _id: string; name: string }>('things');
      await things.insertOne({ _id: 'a', name: 'x' });
      await expect(things.insertOne({ _id: 'b', name: 'x' })).rejects.toThrow(/duplicate/i);
      await things.findOne({ name: 'x' });
      await things.updateOne({ _id: 'a' }, { $set: { name: 'y' } });
      expect(await store.ping()).toBe(true);
    } finally {
      await store.close();
    }
    const counts = await series(metrics, 'store_operation_duration_seconds');
    expect(counts).toMatchObject({
      'operation=createIndexes': 1,
      'operation=insert': 2,
      'operation=find': 1,
      'operation=update': 1,
      'operation=ping': 1,
    });
  });

  it('monitors nothing without metrics (the project CLI and tests)', async () => {
    const uri = new URL(embedded.uri);
    uri.pathname = `/metrics_${randomBytes(4).toString('hex')}`;
    const store = await connectStore(uri.toString(), uri.pathname.slice(1), {});
    try {
      expect(store.client.options.monitorCommands).toBe(false);
    } finally {
      await store.close();
    }
  });
});
