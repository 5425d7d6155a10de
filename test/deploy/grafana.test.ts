/**
 * The sample Grafana dashboard (deploy/grafana/passkeyauth-dashboard.json): valid JSON with a
 * Prometheus datasource variable used by every query, and every metric a query reads is one the
 * processes really expose: names are taken from the registries the processes build (createMetrics,
 * the service counters, the gateway's histogram, prom-client's default metrics), not from a list.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createGateway, type GatewayDeps } from '../../gateway/src/server.js';
import { ceremonyOutcomeCounter, challengeDeliveryCounter, createMetrics, METRIC_NAMES, outboxRelayObserver, webhookDeliveryObserver } from '../../services/runtime/metrics.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FILE = join(REPO, 'deploy', 'grafana', 'passkeyauth-dashboard.json');

interface Target {
  expr: string;
  datasource?: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: Target[];
}

/** Every series name the five processes expose, with the suffixes Prometheus gives histograms and summaries. */
async function exposedSeries(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const service of ['gateway', 'ceremony', 'challenge', 'connect', 'events']) {
    const metrics = createMetrics(service);
    if (service === 'ceremony') ceremonyOutcomeCounter(metrics);
    if (service === 'challenge') challengeDeliveryCounter(metrics);
    // The producers' outbox relays, and the events service's delivery worker.
    if (['ceremony', 'challenge', 'connect'].includes(service)) outboxRelayObserver(metrics);
    if (service === 'events') webhookDeliveryObserver(metrics);
    // Builds the listeners without starting them; only the registry and the routes are read here.
    if (service === 'gateway') createGateway({ routes: [], registry: metrics.registry, logger: pino({ level: 'silent' }) } as unknown as GatewayDeps);
    for (const m of await metrics.registry.getMetricsAsJSON()) {
      const type = String(m.type);
      if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m.name + s);
      else if (type === 'summary') for (const s of ['', '_sum', '_count']) names.add(m.name + s);
      else names.add(m.name);
    }
  }
  return names;
}

const KEYWORDS = new Set([
  ...['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan'],
  // Aggregation operators, which may be followed by a grouping clause instead of "(".
  ...['sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile', 'limitk', 'limit_ratio'],
]);

/** The metric names a PromQL expression selects: identifiers that are not functions, keywords, label names or values. */
function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // strings (label values, regexes)
    .replace(/\{[^}]*\}/g, '{}') // label matchers
    .replace(/\[[^\]]*\]/g, '[]') // range and subquery windows
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '$1 ()'); // grouping labels
  const names = [...stripped.matchAll(/(?<![\w$.:])[a-zA-Z_:][\w:]*/g)]
    .filter((m) => !/^\s*\(/.test(stripped.slice(m.index + m[0].length))) // functions
    .map((m) => m[0])
    .filter((n) => !KEYWORDS.has(n.toLowerCase()));
  return [...new Set(names)];
}

describe('Grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync(FILE, 'utf8')) as {
    title: string;
    uid: string;
    schemaVersion: number;
    templating: { list: { name: string; type: string; query: unknown }[] };
    panels: Panel[];
  };
  const queryPanels = dashboard.panels.filter((p) => p.type !== 'row');
  const exprs = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));

  it('is a dashboard with a Prometheus datasource variable that every panel and query uses', () => {
    expect(dashboard.title).toBe('passkeyauth');
    expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const ds = dashboard.templating.list.find((v) => v.type === 'datasource');
    expect(ds).toMatchObject({ name: 'datasource', query: 'prometheus' });
    expect(queryPanels.length).toBeGreaterThanOrEqual(10);
    for (const p of queryPanels) {
      expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets!) expect(t.datasource ?? p.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
    }
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels) {
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
      expect(p.gridPos.h, p.title).toBeGreaterThan(0);
    }
  });

  it('has the panels operators need: request rate, p95 latency and errors per route, RPC latency, ceremonies, deliveries, store latency', () => {
    const has = (re: RegExp) => expect(exprs.some((e) => re.test(e)), String(re)).toBe(true);
    has(/rate\(gateway_request_duration_seconds_count\[.*by \(listener, route\)|sum by \(listener, route\) \(rate\(gateway_request_duration_seconds_count/);
    has(/histogram_quantile\(0\.95, sum by \(le, listener, route\) \(rate\(gateway_request_duration_seconds_bucket/);
    has(/sum by \(status\) \(rate\(gateway_request_duration_seconds_count/);
    has(/histogram_quantile\(0\.95, sum by \(le, method\) \(rate\(rpc_server_duration_seconds_bucket/);
    has(/ceremony_outcomes_total/);
    has(/challenge_deliveries_total/);
    has(/histogram_quantile\(0\.95, .*store_operation_duration_seconds_bucket/);
    has(/sum by \(outcome\) \(rate\(webhook_delivery_attempts_total/);
    has(/histogram_quantile\(0\.99, .*webhook_delivery_lag_seconds_bucket/);
    has(/outbox_relay_failures_total/);
  });

  it('reads only metrics the processes expose, and every metric of this code base is on it', async () => {
    const exposed = await exposedSeries();
    const variableQueries = dashboard.templating.list.flatMap((v) => {
      const q = v.query as { query?: string } | string;
      const text = typeof q === 'string' ? q : (q?.query ?? '');
      const m = /^label_values\(([a-zA-Z_:][\w:]*)\s*,/.exec(text);
      return m ? [m[1]] : [];
    });
    expect(variableQueries).toEqual(['process_start_time_seconds']);
    const used = new Set([...exprs.flatMap(metricNamesIn), ...variableQueries]);
    expect(used.size).toBeGreaterThan(5);
    for (const name of used) expect(exposed.has(name), `${name} is not exposed by any process`).toBe(true);
    for (const name of Object.values(METRIC_NAMES)) {
      expect([...used].some((u) => u === name || u.startsWith(`${name}_`)), `${name} is not on the dashboard`).toBe(true);
    }
  });

  it('finds metric names in PromQL (the check above depends on it)', () => {
    expect(metricNamesIn('histogram_quantile(0.95, sum by (le, route) (rate(foo_bucket{status=~"5..", x="a b"}[$__rate_interval])))')).toEqual(['foo_bucket']);
    expect(metricNamesIn('sum(rate(a_total[5m])) / sum without (x) (b_count offset 5m) > bool 0')).toEqual(['a_total', 'b_count']);
    expect(metricNamesIn('max by (service, instance) (up{service=~"$service"})')).toEqual(['up']);
  });
});
