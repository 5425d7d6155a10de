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
