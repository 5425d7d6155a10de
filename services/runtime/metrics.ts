/** Prometheus metrics of one process (prom-client), served at /metrics. */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  rpcDuration: Histogram<'method' | 'code'>;
  storeDuration: Histogram<'operation'>;
  counter(name: string, help: string, labels: string[]): Counter<string>;
}

export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const counters = new Map<string, Counter<string>>();
  return {
    registry,
    rpcDuration: new Histogram({
      name: 'rpc_server_duration_seconds',
      help: 'Latency of handled RPCs by method and result code',
      labelNames: ['method', 'code'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    storeDuration: new Histogram({
      name: 'store_operation_duration_seconds',
      help: 'Latency of MongoDB operations by operation',
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
