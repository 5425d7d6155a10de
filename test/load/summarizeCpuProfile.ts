/**
 * Summarizes a V8 .cpuprofile (node --cpu-prof): self and total time per function and self time per
 * module, optionally only for samples inside a CLOCK_MONOTONIC window in µs (the clock of the
 * profile's timestamps; the bench's --webhooks prints each run's window as `window-monotonic-us`).
 * Functions in a bundle of .local/build are named by the source module esbuild marked them with
 * (`// services/events/src/...` lines), not by the bundle.
 *
 * It also splits the time by what it was spent for (`--by service` or `--by store`): each sample
 * goes to the first frame, from the leaf up, that one of the rules names (so a socket write goes to
 * the store driver or the HTTP client that made it).
 *
 *   npx tsx test/load/summarizeCpuProfile.ts FILE.cpuprofile [--from US --to US] [--top N] [--by service|store] [--under REGEX] [--json]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const file = args[0];
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const from = opt('--from', -Infinity);
const to = opt('--to', Infinity);
const top = opt('--top', 25);
const byMode = args.includes('--by') ? args[args.indexOf('--by') + 1] : 'service';
/** What a service's CPU was for, by the module of the frame (first match from the leaf up). */
const SERVICE_RULES: [RegExp, string][] = [
  [/^npm:(mongodb|bson)$|timeStoreOperations|\/store\//, 'store client (driver, BSON, socket)'],
  [/standardwebhooks|fast-sha256/, 'signing (standardwebhooks HMAC)'],
  [/postWebhook|node:_http_client|node:_http_agent/, 'webhook POST (HTTP client)'],
  [/connectrpc|bufbuild|node:_http_server|interceptors|internalAuth|runtime\/server|eventService|rpcClient|eventsRpc/, 'RPC (Connect, HTTP server/client, auth)'],
  [/prom-client|runtime\/metrics|observeDelivery/, 'metrics'],
  [/pino|logger/, 'logging'],
  [/outbox|subscribedTypesCache/, 'outbox/relay (own code)'],
  [/^services\/events\/src\/domain/, 'events domain (deliverDue, publishEvents, …)'],
];
/** The store's CPU by command handler (commands/<name>.ts), the journal and the wire. */
const STORE_RULES: [RegExp, string | null][] = [
  [/embedded-mongo\/src\/commands\/(\w+)\.ts|packages\/embedded-mongo\/src\/commands\/(\w+)/, null],
  [/journal|spillDocuments/, 'journal / spill'],
  [/wire|server\.ts|collectMessages/, 'wire protocol'],
];
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;

/** Per bundle: the source module of each line (esbuild's `// path` markers). */
const bundleModules = new Map<string, [number, string][]>();
function moduleOfBundleLine(url: string, line: number): string | null {
  let marks = bundleModules.get(url);
  if (!marks) {
    marks = [] as [number, string][];
    try {
      const lines = readFileSync(fileURLToPath(url), 'utf8').split('\n');
      lines.forEach((l, i) => {
        const m = /^\/\/ ((?:services|packages|gen|gateway|deploy)\/\S+\.ts)$/.exec(l);
        if (m) marks!.push([i, m[1]]);
      });
    } catch {
      // Not a readable file: named by its URL.
    }
    bundleModules.set(url, marks);
  }
  let found: string | null = null;
  for (const [at, mod] of marks) {
    if (at > line) break;
    found = mod;
  }
  return found;
}

function moduleOf(frame: CallFrame): string {
  const url = frame.url || '';
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (url.includes('/.local/build/')) return moduleOfBundleLine(url, frame.lineNumber) ?? url.replace(/.*\/\.local\/build\//, 'bundle:');
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url);
  if (nm) return `npm:${nm[1]}`;
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  return url.replace(/^file:\/\/.*?\/(services|packages|test|deploy)\//, '$1/');
}

const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const keyOf = new Map<number, { fn: string; mod: string }>();
for (const n of profile.nodes) {
  const f = n.callFrame;
  keyOf.set(n.id, { fn: `${f.functionName || '(anonymous)'} ${moduleOf(f)}:${f.lineNumber + 1}`, mod: moduleOf(f) });
}

function labelOf(id: number): string {
  if (byMode === 'store') {
    // The outermost command handler (a command's helpers in writes.ts etc. count for it).
    let cmd: string | null = null;
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const m = /embedded-mongo\/src\/commands\/(\w+)\.ts/.exec(keyOf.get(n)!.mod);
      if (m && !['writes', 'context', 'registry'].includes(m[1])) cmd = m[1];
    }
    if (cmd) return `command ${cmd}`;
    // V8 samples on wall time: a loopback write wakes the reading process, which often preempts
    // the writer inside the write, so this is largely time off the CPU.
    if (keyOf.get(id)!.fn.startsWith('writeBuffer ')) return 'socket write (writeBuffer; largely off-CPU, see note)';
  }
  const rules = byMode === 'store' ? STORE_RULES : SERVICE_RULES;
  for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
    const mod = keyOf.get(n)!.mod;
    for (const [re, label] of rules) {
      const m = re.exec(mod);
      if (m) return label ?? `command ${m[1] ?? m[2]}`;
    }
  }
  const leaf = keyOf.get(id)!.mod;
  return `other (${leaf.startsWith('node:') || leaf.startsWith('(') ? leaf : 'code'})`;
}

/** --under REGEX: only samples with a frame (function and module) matching it, e.g. one command's handler. */
const under = args.includes('--under') ? new RegExp(args[args.indexOf('--under') + 1]) : null;
function hasAncestor(id: number, re: RegExp): boolean {
  for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) if (re.test(keyOf.get(n)!.fn)) return true;
  return false;
}

const byLabel = new Map<string, number>();
const self = new Map<string, number>();
const total = new Map<string, number>();
const selfMod = new Map<string, number>();
let t = profile.startTime;
let windowUs = 0;
let idleUs = 0;
const samples = profile.samples;
const deltas = profile.timeDeltas;
for (let i = 0; i < samples.length; i++) {
  t += deltas[i];
  const dur = i + 1 < deltas.length ? deltas[i + 1] : 0;
  if (t < from || t > to) continue;
  const id = samples[i];
  const k = keyOf.get(id)!;
  if (under && !hasAncestor(id, under)) continue;
  if (k.fn.startsWith('(idle)')) {
    idleUs += dur;
    continue;
  }
  windowUs += dur;
  self.set(k.fn, (self.get(k.fn) ?? 0) + dur);
  selfMod.set(k.mod, (selfMod.get(k.mod) ?? 0) + dur);
  const label = labelOf(id);
  byLabel.set(label, (byLabel.get(label) ?? 0) + dur);
  const seen = new Set<string>();
  for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
    const fk = keyOf.get(n)!.fn;
    if (seen.has(fk)) continue;
    seen.add(fk);
    total.set(fk, (total.get(fk) ?? 0) + dur);
  }
}

const ms = (us: number) => (us / 1000).toFixed(1);
const pct = (us: number) => ((100 * us) / windowUs).toFixed(1);
const rows = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
const out = { busyMs: windowUs / 1000, idleMs: idleUs / 1000, byPurpose: rows(byLabel, top), selfByModule: rows(selfMod, top), selfByFunction: rows(self, top), totalByFunction: rows(total, top * 2) };
if (args.includes('--json')) {
  console.log(JSON.stringify(out));
} else {
  console.log(`busy ${ms(windowUs)} ms, idle ${ms(idleUs)} ms`);
  console.log(`\nby purpose (--by ${byMode})`);
  for (const [k, v] of out.byPurpose) console.log(`${ms(v).padStart(9)} ms ${pct(v).padStart(5)} %  ${k}`);
  console.log('\nself by module');
  for (const [k, v] of out.selfByModule) console.log(`${ms(v).padStart(9)} ms ${pct(v).padStart(5)} %  ${k}`);
  console.log('\nself by function');
  for (const [k, v] of out.selfByFunction) console.log(`${ms(v).padStart(9)} ms ${pct(v).padStart(5)} %  ${k}`);
  console.log('\ntotal by function');
  for (const [k, v] of out.totalByFunction) console.log(`${ms(v).padStart(9)} ms ${pct(v).padStart(5)} %  ${k}`);
}
