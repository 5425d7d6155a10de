/**
 * Counting from Prometheus text: how many store operations and RPCs a process handled between two
 * scrapes of its /metrics. Pure, so it is unit-tested.
 */

export const STORE_OPERATIONS = 'store_operation_duration_seconds_count';
export const RPCS = 'rpc_server_duration_seconds_count';

/** One sample line: metric name, its labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/**
 * Growth of the counter `name` between two scrapes, summed per value of `byLabel` (e.g. the store
 * operation or the RPC method). A series missing before counts from 0 (first use in the phase); a
 * series that shrank means the process restarted, which the caller must not divide by ceremonies.
 */
export function diffCounter(before: Sample[], after: Sample[], name: string, byLabel: string): { total: number; by: Record<string, number>; reset: boolean } {
  const key = (s: Sample) => JSON.stringify(Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : 1)));
  const start = new Map<string, number>();
  for (const s of before) if (s.name === name) start.set(key(s), s.value);
  const by: Record<string, number> = {};
  let total = 0;
  let reset = false;
  for (const s of after) {
    if (s.name !== name) continue;
    const delta = s.value - (start.get(key(s)) ?? 0);
    if (delta < 0) reset = true;
    if (delta <= 0) continue;
    const group = s.labels[byLabel] ?? '';
    by[group] = (by[group] ?? 0) + delta;
    total += delta;
  }
  return { total, by, reset };
}
