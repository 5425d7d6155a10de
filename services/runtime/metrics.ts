/**
 * Prometheus metrics of one process (prom-client), served at /metrics. Every process has the
 * default Node.js metrics, rpc_server_duration_seconds (services) and store_operation_duration_seconds
 * (processes with a store); the service-specific counters are made by the functions below and
 * handed to the domain through its deps. docs/operations.md, "Metrics", lists them all.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  rpcDuration: Histogram<'method' | 'code'>;
  storeDuration: Histogram<'operation'>;
  counter(name: string, help: string, labels: string[]): Counter<string>;
}

/** Metric names this code base defines (beside prom-client's defaults); the Grafana dashboard may use only these. */
export const METRIC_NAMES = {
  rpcDuration: 'rpc_server_duration_seconds',
  storeDuration: 'store_operation_duration_seconds',
  gatewayDuration: 'gateway_request_duration_seconds',
  ceremonyOutcomes: 'ceremony_outcomes_total',
  challengeDeliveries: 'challenge_deliveries_total',
  webhookAttempts: 'webhook_delivery_attempts_total',
  webhookAttemptDuration: 'webhook_attempt_duration_seconds',
  webhookLag: 'webhook_delivery_lag_seconds',
  webhookEndpointsDisabled: 'webhook_endpoints_disabled_total',
  outboxPublished: 'outbox_events_published_total',
  outboxSkipped: 'outbox_events_skipped_total',
  outboxRelayFailures: 'outbox_relay_failures_total',
} as const;

export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const counters = new Map<string, Counter<string>>();
  return {
    registry,
    rpcDuration: new Histogram({
      name: METRIC_NAMES.rpcDuration,
      help: 'Latency of handled RPCs by method and result code',
      labelNames: ['method', 'code'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    storeDuration: new Histogram({
      name: METRIC_NAMES.storeDuration,
      help: 'Latency of MongoDB commands by command name (driver command monitoring)',
      labelNames: ['operation'],
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
      registers: [registry],
    }),
    counter(name, help, labels) {
      let c = counters.get(name);
      if (!c) {
        c = new Counter({ name, help, labelNames: labels, registers: [registry] });
        counters.set(name, c);
      }
      return c;
    },
  };
}

/** ceremony_outcomes_total: finished ceremonies (B3 append, B5 login, B7 mediation) by outcome and failure reason. */
export function ceremonyOutcomeCounter(metrics: Metrics): Counter<'operation' | 'outcome' | 'reason'> {
  return metrics.counter(
    METRIC_NAMES.ceremonyOutcomes,
    'Finished passkey ceremonies by operation (append, login, mediation), outcome (success, failure) and failure reason',
    ['operation', 'outcome', 'reason'],
  );
}

/** challenge_deliveries_total: challenge and notification messages by channel and final result (after retries). */
export function challengeDeliveryCounter(metrics: Metrics): Counter<'channel' | 'result'> {
  return metrics.counter(METRIC_NAMES.challengeDeliveries, 'Challenge and notification deliveries by channel (email, sms) and result (sent, failed) after retries', [
    'channel',
    'result',
  ]);
}

/** The outcomes of a webhook attempt (services/events/src/domain/observeDelivery.ts): a closed set, so each series exists from the start. */
const WEBHOOK_ATTEMPT_OUTCOMES = ['succeeded', 'failed_http', 'gone', 'failed_network', 'address_not_allowed', 'endpoint_unavailable'] as const;

/**
 * The events service's delivery metrics, as the worker's observer (its DeliveryObserver port).
 * No project, endpoint or URL is a label: they are unbounded and name tenants; the delivery log
 * (`GET /v2/webhookEndpoints/{id}/deliveries`) says which endpoint fails.
 */
export function webhookDeliveryObserver(metrics: Metrics) {
  const attempts = metrics.counter(METRIC_NAMES.webhookAttempts, 'Webhook delivery attempts by outcome (succeeded, failed_http, gone, failed_network, address_not_allowed, endpoint_unavailable)', [
    'outcome',
  ]);
  for (const outcome of WEBHOOK_ATTEMPT_OUTCOMES) attempts.inc({ outcome }, 0);
  const disabled = metrics.counter(METRIC_NAMES.webhookEndpointsDisabled, 'Webhook endpoints disabled by a failed attempt, by reason (gone: a 410; failing: a day of failures)', ['reason']);
  for (const reason of ['gone', 'failing']) disabled.inc({ reason }, 0);
  const duration = new Histogram({
    name: METRIC_NAMES.webhookAttemptDuration,
    help: "Duration of a webhook attempt's HTTP request, until the answer or the failure (timeout WEBHOOK_TIMEOUT_MS)",
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [metrics.registry],
  });
  const lag = new Histogram({
    name: METRIC_NAMES.webhookLag,
    help: "Seconds from an event's occurrence (at its producer) to its delivery's successful attempt, retries included",
    // From the relay and poll delays (tenths of seconds) to the retry schedule's last steps (hours, a day).
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 7200, 18000, 36000, 86400],
    registers: [metrics.registry],
  });
  return {
    attempted(outcome: string, seconds: number | null) {
      attempts.inc({ outcome });
      if (seconds !== null) duration.observe(seconds);
    },
    delivered(lagSeconds: number) {
      lag.observe(lagSeconds);
    },
    endpointDisabled(reason: string) {
      disabled.inc({ reason });
    },
  };
}

/** A producer's outbox relay metrics, as its observer (services/runtime/outbox.ts, OutboxObserver). */
export function outboxRelayObserver(metrics: Metrics) {
  const published = metrics.counter(METRIC_NAMES.outboxPublished, 'Outbox events handed to the events service (PublishEvents answered)', []);
  const skipped = metrics.counter(METRIC_NAMES.outboxSkipped, 'Events not written to the outbox: no webhook endpoint of the project subscribes to the type', []);
  const failures = metrics.counter(METRIC_NAMES.outboxRelayFailures, 'Relay runs that failed (events service or store unreachable); the events stay in the outbox and are retried', []);
  // Present at 0 from the start, so rate() and alerts see the series before the first event.
  for (const c of [published, skipped, failures]) c.inc(0);
  return {
    published(count: number) {
      published.inc(count);
    },
    skipped() {
      skipped.inc();
    },
    relayFailed() {
      failures.inc();
    },
  };
}
